// The module host (plain JavaScript, run by the supervisor as
// `node --import <tsx> --conditions=source --max-old-space-size=N module-host.mjs MODULE`): it
// imports a provider module (`pnpm validate my-allocator.ts`) in a process of its own and serves
// the protocol of fuzz/PROTOCOL.md on stdin/stdout for it, both pools, so a module provider is
// isolated exactly like a `--cmd` one: it can hang, exit, crash or run out of memory without
// taking the validator, its exit status or its output with it.
//
// Beyond the plain protocol it checks what the module returns against the contract's types and
// reports a wrong type in the reply (`"returned": "an Array"`), passes Int32Arrays and scribbles
// over them once each call returns, and keeps `backupState` snapshots here by handle (PROTOCOL.md,
// "Module providers"). Everything it relies on is captured below, before the module is imported,
// so a module that patches globals (`Int32Array.prototype.fill`, `JSON`, `console`) cannot switch
// those checks off; the validator checks every reply again on its side either way.
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { serialize } from 'node:v8';
import { registerContractPackages } from './contract-packages.mjs';

const kProtocol = 'kvfuzz-allocator/1';
/** What a caller writes over its arrays once a call returns (the model's kScribble). */
const kScribble = -7;
/** Longest description of a thrown value sent back: the validator shortens it again for display. */
const kDescribeCharsMax = 2_000;
/** Snapshots kept when the validator names no bound (it always does, in `load`). */
const kSnapshotsMaxDefault = 1_024;

// ---- captured before the module can change anything ---------------------------------------------

const parse = JSON.parse;
/** JSON.stringify, only ever applied to primitive strings (no toJSON is looked up for those). */
const quote = JSON.stringify;
const Int32 = Int32Array;
const apply = Reflect.apply;
const hasOwn = Object.hasOwn;
const createObject = Object.create;
const isArray = Array.isArray;
const isFiniteNumber = Number.isFinite;
const toText = String;
const exit = process.exit.bind(process);
const typedArrayPrototype = Object.getPrototypeOf(Int32Array.prototype);
/** The engine's own [[TypedArrayName]]: `undefined` for anything that is not a typed array, proxies included. */
const typedArrayTag = Object.getOwnPropertyDescriptor(typedArrayPrototype, Symbol.toStringTag).get;
const typedArrayLength = Object.getOwnPropertyDescriptor(typedArrayPrototype, 'length').get;
const moduleFile = process.argv[2];
const stdin = process.stdin;
const stderr = process.stderr;

// A provider from a project outside this workspace may import the contract's packages without
// having them installed: they resolve to the workspace's (contract-packages.mjs; its own
// installed copy wins when it has one).
registerContractPackages(import.meta.url);

// The module's console output goes to stderr: stdout carries the protocol and nothing else.
Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => stderr });
for (const method of ['log', 'info', 'debug', 'dir', 'dirxml', 'table', 'group', 'groupCollapsed']) {
  // eslint-disable-next-line no-console
  console[method] = console.error;
}

// ---- replies --------------------------------------------------------------------------------------

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Writes one reply line, whole: fd 1 is a pipe, and a partial or refused write is retried. */
function send(text) {
  const bytes = Buffer.from(`${text}\n`);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(1, bytes, offset);
    } catch (error) {
      if (error?.code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** Any thrown value as bounded text, whatever it is (null, a proxy, an object whose toString throws). */
function describe(value) {
  let text;
  try {
    if (value === null || value === undefined) text = `${toText(value)} was thrown`;
    else if (typeof value === 'object' || typeof value === 'function') {
      let name;
      let message;
      try {
        name = value.name;
      } catch {
        name = undefined;
      }
      try {
        message = value.message;
      } catch {
        message = undefined;
      }
      if (typeof message === 'string') text = typeof name === 'string' && name !== '' ? `${name}: ${message}` : message;
      else text = toText(value);
    } else text = toText(value);
  } catch {
    text = `an unprintable ${typeof value}`;
  }
  return text.length > kDescribeCharsMax ? `${text.slice(0, kDescribeCharsMax)}…` : text;
}

/** What a value is, in words, for a `returned` field: "an Array", "undefined", "the number 1.5". */
function kindOf(value) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'number':
      return `the number ${value}`;
    case 'string':
      return 'a string';
    case 'boolean':
      return `${value}`;
    case 'bigint':
      return 'a bigint';
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      break;
  }
  let array = false;
  try {
    array = isArray(value);
  } catch {
    return 'a revoked proxy';
  }
  if (array) return 'an Array';
  const tag = apply(typedArrayTag, value, []);
  if (typeof tag === 'string') return /^[AEIOU]/.test(tag) ? `an ${tag}` : `a ${tag}`;
  return 'an object';
}

const failure = (error) => `{"ok":false,"error":${quote(describe(error))}}`;
const done = '{"ok":true}';
const wrongType = (value) => `{"ok":true,"returned":${quote(kindOf(value))}}`;

/** The reply for a call that returns slots: an Int32Array or null, anything else is a wrong type. */
function slotsReply(value) {
  if (value === null) return '{"ok":true,"indices":null}';
  if (apply(typedArrayTag, value, []) !== 'Int32Array') return wrongType(value);
  const n = apply(typedArrayLength, value, []);
  let text = '{"ok":true,"indices":[';
  for (let i = 0; i < n; i++) text += i === 0 ? `${value[i]}` : `,${value[i]}`;
  return `${text}]}`;
}

/** The reply for a call that returns a number (`availableSize`, a host `free`'s count). */
function numberReply(field, value) {
  return typeof value === 'number' && isFiniteNumber(value) ? `{"ok":true,"${field}":${value}}` : wrongType(value);
}

/** One size property of what `create` returned, read once: `{ value }`, or `{ geometry }` saying why it is not a number. */
function readNumber(made, what, key) {
  let value;
  try {
    value = made[key];
  } catch (error) {
    return { geometry: `${what} whose ${key} getter threw ${describe(error)}` };
  }
  return typeof value === 'number' && isFiniteNumber(value) ? { value } : { geometry: `${what} whose ${key} is ${kindOf(value)}` };
}

const wrongGeometry = (read) => `{"ok":true,"geometry":${quote(read.geometry)}}`;

// ---- arrays the provider gets -----------------------------------------------------------------------

/** A malformed request (the validator's own bug, never the provider's). */
class RequestError extends Error {}

/** The Int32Arrays passed in one call, to scribble over once it returns. */
function newPassed() {
  return { arrays: createObject(null), count: 0 };
}

function int32sOf(list, passed, field) {
  if (!isArray(list)) throw new RequestError(`ProtocolError: "${field}" is not an array`);
  const n = list.length;
  const out = new Int32(n);
  for (let i = 0; i < n; i++) out[i] = list[i];
  passed.arrays[passed.count++] = out;
  return out;
}

/** Callers may overwrite their arrays as soon as a call returns: a plain loop, which no patched method can skip. */
function scribble(passed) {
  for (let j = 0; j < passed.count; j++) {
    const a = passed.arrays[j];
    const n = apply(typedArrayLength, a, []);
    for (let i = 0; i < n; i++) a[i] = kScribble;
  }
}

// ---- state ------------------------------------------------------------------------------------------

let provider = null;
let create = null;
let allocator = null;
let pool = null;
let snapshotsMax = kSnapshotsMaxDefault;
// backupState snapshots by handle, the oldest dropped past snapshotsMax; cleared on create.
let snapshots = createObject(null);
let snapshotOldest = 1;
let snapshotNext = 1;

function clearSnapshots() {
  snapshots = createObject(null);
  snapshotOldest = snapshotNext;
}

async function load(request) {
  if (typeof request.snapshotsMax === 'number' && request.snapshotsMax >= 1) snapshotsMax = request.snapshotsMax;
  let namespace;
  try {
    namespace = await import(pathToFileURL(moduleFile).href);
  } catch (error) {
    return failure(`the module threw while loading: ${describe(error)}`);
  }
  let exported;
  try {
    exported = namespace.default;
  } catch (error) {
    return failure(`reading the default export threw ${describe(error)}`);
  }
  if (exported === null || (typeof exported !== 'object' && typeof exported !== 'function')) {
    return failure(`the default export must be { name: string, create(config) }, not ${kindOf(exported)}`);
  }
  let name;
  try {
    name = exported.name;
  } catch (error) {
    return failure(`reading the default export's name threw ${describe(error)}`);
  }
  if (typeof name !== 'string') return failure(`the default export's name is ${kindOf(name)}, not a string`);
  let createField;
  try {
    createField = exported.create;
  } catch (error) {
    return failure(`reading the default export's create threw ${describe(error)}`);
  }
  if (typeof createField !== 'function') return failure(`the default export's create is ${kindOf(createField)}, not a function`);
  provider = exported;
  create = createField;
  return `{"ok":true,"name":${quote(name)}}`;
}

/**
 * Builds the provider's allocator or host pool and reads the geometry fields it reports, each
 * once: the reply carries them, or says which is missing or throwing.
 */
function build(request, what, keys, adopt) {
  if (create === null) return failure(`StateError: ${request.op} before load`);
  let made;
  try {
    made = apply(create, provider, [request.config]);
  } catch (error) {
    return failure(error);
  }
  allocator = null;
  pool = null;
  clearSnapshots();
  if (made === null || (typeof made !== 'object' && typeof made !== 'function')) return wrongType(made);
  const fields = [];
  for (const key of keys) {
    const read = readNumber(made, what, key);
    if (read.geometry !== undefined) return wrongGeometry(read);
    fields.push(`"${key}":${read.value}`);
  }
  adopt(made);
  return `{"ok":true,${fields.join(',')}}`;
}

function createAllocator(request) {
  return build(request, 'an allocator', ['pageSize', 'numPages'], (made) => {
    allocator = made;
  });
}

function createHostPool(request) {
  return build(request, 'a host pool', ['size', 'pageSize'], (made) => {
    pool = made;
  });
}

function backup() {
  const state = allocator.backupState();
  const handle = snapshotNext++;
  snapshots[handle] = state;
  while (snapshotNext - snapshotOldest > snapshotsMax) delete snapshots[snapshotOldest++];
  let digest;
  try {
    digest = createHash('sha256').update(serialize(state)).digest('hex');
  } catch (error) {
    digest = `unserializable (${describe(error)})`;
  }
  return `{"ok":true,"state":{"handle":${handle}},"digest":${quote(digest)}}`;
}

function restore(request) {
  const handle = request.state?.handle;
  if (typeof handle !== 'number' || !hasOwn(snapshots, handle)) throw new RequestError(`StateError: no snapshot with handle ${toText(handle)} (the host keeps the last ${snapshotsMax})`);
  allocator.restoreState(snapshots[handle]);
  return done;
}

/** The allocator ops: each returns the reply text; what it throws is the provider's rejection. */
const kAllocatorOps = {
  availableSize: () => numberReply('value', allocator.availableSize()),
  alloc: (r) => slotsReply(allocator.alloc(r.needSize)),
  allocExtend: (r, passed) =>
    slotsReply(allocator.allocExtend({ prefixLens: int32sOf(r.prefixLens, passed, 'prefixLens'), seqLens: int32sOf(r.seqLens, passed, 'seqLens'), lastLoc: int32sOf(r.lastLoc, passed, 'lastLoc') })),
  allocDecode: (r, passed) => slotsReply(allocator.allocDecode({ seqLens: int32sOf(r.seqLens, passed, 'seqLens'), lastLoc: int32sOf(r.lastLoc, passed, 'lastLoc') })),
  free: (r, passed) => {
    allocator.free(int32sOf(r.indices, passed, 'indices'));
    return done;
  },
  freeSegments: (r, passed) => {
    if (!isArray(r.segments)) throw new RequestError('ProtocolError: "segments" is not an array');
    const n = r.segments.length;
    const segments = [];
    for (let i = 0; i < n; i++) segments[i] = { indices: int32sOf(r.segments[i]?.indices, passed, 'indices'), startPos: r.segments[i].startPos };
    allocator.freeSegments(segments);
    return done;
  },
  freeGroupBegin: () => {
    allocator.freeGroupBegin();
    return done;
  },
  freeGroupEnd: () => {
    allocator.freeGroupEnd();
    return done;
  },
  backupState: () => backup(),
  restoreState: (r) => restore(r),
  clear: () => {
    allocator.clear();
    return done;
  },
};

const kHostOps = {
  hostAvailableSize: () => numberReply('value', pool.availableSize()),
  hostAlloc: (r) => slotsReply(pool.alloc(r.n)),
  hostFree: (r, passed) => numberReply('count', pool.free(int32sOf(r.indices, passed, 'indices'))),
  hostClear: () => {
    pool.clear();
    return done;
  },
};

async function handle(line) {
  let request;
  try {
    request = parse(line);
  } catch {
    return failure('ProtocolError: the line is not JSON');
  }
  const op = request?.op;
  if (op === 'bye') {
    send(done);
    exit(0);
  }
  if (op === 'hello') {
    return request.protocol === kProtocol
      ? `{"ok":true,"protocol":${quote(kProtocol)},"name":"kvfuzz module host"}`
      : failure(`unsupported protocol ${quote(toText(request.protocol))}: the module host speaks ${kProtocol}`);
  }
  if (op === 'load') return load(request);
  if (op === 'create') return createAllocator(request);
  if (op === 'createHost') return createHostPool(request);
  const allocatorOp = hasOwn(kAllocatorOps, op) ? kAllocatorOps[op] : null;
  const hostOp = hasOwn(kHostOps, op) ? kHostOps[op] : null;
  if (allocatorOp === null && hostOp === null) return failure(`ProtocolError: unknown op ${quote(toText(op))}`);
  if (allocatorOp !== null && allocator === null) return failure(`StateError: ${op} before create`);
  if (hostOp !== null && pool === null) return failure(`StateError: ${op} before createHost`);
  const passed = newPassed();
  try {
    return (allocatorOp ?? hostOp)(request, passed);
  } catch (error) {
    return error instanceof RequestError ? failure(error.message) : failure(error);
  } finally {
    scribble(passed);
  }
}

// ---- the loop ---------------------------------------------------------------------------------------

let buffered = '';
let queue = Promise.resolve();
stdin.setEncoding('utf8');
stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (line.trim() === '') continue;
    // One request at a time, in order: only `load` awaits (the module's import).
    queue = queue.then(async () => {
      let reply;
      try {
        reply = await handle(line);
      } catch (error) {
        reply = failure(`InternalError: the module host failed: ${describe(error)}`);
      }
      send(reply);
    });
  }
});
stdin.on('end', () => exit(0));
