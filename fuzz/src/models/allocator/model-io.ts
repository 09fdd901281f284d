import { isDeepStrictEqual } from 'node:util';
import type { AllocatorConfig, DecodeBatch, ExtendBatch, PageAllocator } from '@kvfuzz/allocator-core';
import { LedgerViolation } from '../../ledger/ledger-violation.js';
import type { OpLabel } from '../../ledger/op-label.js';
import { ForwardingAllocator } from './forwarding-allocator.js';
import { isProviderFault } from '../../provider-fault.js';
import { describeThrown } from '../../text/describe-thrown.js';
import type { AllocatorModel, AllocatorReal } from './allocator-model-state.js';
import { slotAt, type Holding } from './holding.js';

/** What a caller writes over its arrays once a call returns, like a request-table row being reused. */
export const kScribble = -7;

/**
 * Overwrites every array the caller passed: the implementation must have copied what it keeps.
 * A plain indexed loop, so an implementation that patches `Int32Array.prototype.fill` cannot skip it.
 */
export function scribble(...arrays: Int32Array[]): void {
  for (const a of arrays) {
    for (let i = 0; i < a.length; i++) a[i] = kScribble;
  }
}

/** What a value is, in words, for a violation: "an Array", "undefined", "the number 1.5". */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'object') return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
  if (Array.isArray(value)) return 'an Array';
  const tag = ArrayBuffer.isView(value) ? value.constructor.name : '';
  return tag === '' ? 'an object' : /^[AEIOU]/.test(tag) ? `an ${tag}` : `a ${tag}`;
}

/** Slots as the contract names them: an Int32Array, or null when short. */
function checkSlots(value: unknown, op: string): Int32Array | null {
  if (value === null || value instanceof Int32Array) return value;
  throw new LedgerViolation('return-type', `${op} returned ${kindOf(value)}, not an Int32Array or null`);
}

/**
 * The implementation as the model sees it: every result is checked against the type the contract
 * names before the model reads it, so a wrong type is a named violation and never a crash of the
 * model (an allocation returns an Int32Array or null, `availableSize` an integer), and
 * `pageSize`/`numPages` are read once, at creation, and are the configuration's.
 */
class ContractCheckedAllocator extends ForwardingAllocator {
  /** The implementation's own check, forwarded (the reference's; the model calls it only for the reference). */
  readonly verifyInvariants?: () => void;

  constructor(
    inner: PageAllocator,
    private readonly pageSizeRead: number,
    private readonly numPagesRead: number,
  ) {
    super(inner);
    const own = (inner as PageAllocator & { verifyInvariants?: unknown }).verifyInvariants;
    if (typeof own === 'function') this.verifyInvariants = () => void own.call(inner);
  }

  override get pageSize(): number {
    return this.pageSizeRead;
  }

  override get numPages(): number {
    return this.numPagesRead;
  }

  override availableSize(): number {
    const value: unknown = this.inner.availableSize();
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new LedgerViolation('return-type', `availableSize() returned ${kindOf(value)}, not an integer`);
    return value;
  }

  override alloc(needSize: number): Int32Array | null {
    return checkSlots(this.inner.alloc(needSize), 'alloc');
  }

  override allocExtend(batch: ExtendBatch): Int32Array | null {
    return checkSlots(this.inner.allocExtend(batch), 'allocExtend');
  }

  override allocDecode(batch: DecodeBatch): Int32Array | null {
    return checkSlots(this.inner.allocDecode(batch), 'allocDecode');
  }
}

/** One geometry property of a new allocator, read once; a throwing getter is a violation like a wrong value. */
function readGeometry(made: object, key: 'pageSize' | 'numPages', expect: number, how: string, op: string, contractRule: string | null): number {
  let value: unknown;
  try {
    value = (made as Record<string, unknown>)[key];
  } catch (error) {
    throw new LedgerViolation('geometry', `${op} returned an allocator whose ${key} getter threw ${describeThrown(error)}`, contractRule);
  }
  if (value !== expect) throw new LedgerViolation('geometry', `${op} returned an allocator with ${key} ${typeof value === 'number' ? value : kindOf(value)}; ${how} = ${expect}`, contractRule);
  return expect;
}

/**
 * What `create(config)` returned, checked and wrapped for the model: an object whose `pageSize` is
 * `kernelPageSize × dcpSize` and whose `numPages` is `floor(sizeTokens / pageSize)` (A1; A3 for a
 * size with a remainder, which only a provider that accepts one is given), each read once, and
 * whose results are type-checked call by call.
 *
 * @throws LedgerViolation `return-type` when it is not an object, `geometry` when a size is wrong or its getter throws.
 */
export function contractChecked(made: unknown, config: Required<Pick<AllocatorConfig, 'sizeTokens' | 'kernelPageSize' | 'dcpSize'>>): PageAllocator {
  const op = `create({ sizeTokens: ${config.sizeTokens}, kernelPageSize: ${config.kernelPageSize}, dcpSize: ${config.dcpSize} })`;
  if (made === null || (typeof made !== 'object' && typeof made !== 'function')) throw new LedgerViolation('return-type', `${op} returned ${kindOf(made)}, not an allocator`);
  const pageSize = config.kernelPageSize * config.dcpSize;
  const numPages = Math.floor(config.sizeTokens / pageSize);
  const remainder = config.sizeTokens % pageSize;
  readGeometry(made, 'pageSize', pageSize, `kernelPageSize ${config.kernelPageSize} × dcpSize ${config.dcpSize}`, op, null);
  const how = remainder === 0 ? `sizeTokens ${config.sizeTokens} / pageSize ${pageSize}` : `floor(sizeTokens ${config.sizeTokens} / pageSize ${pageSize})`;
  readGeometry(made, 'numPages', numPages, how, op, remainder === 0 ? null : 'A3');
  return new ContractCheckedAllocator(made as PageAllocator, pageSize, numPages);
}

/** The live holding a pick resolves to (modulo the live set), or null when nothing is live. */
export function resolvePick(m: AllocatorModel, pick: number, growableOnly = false): Holding | null {
  if (!growableOnly) return m.live.length === 0 ? null : (m.live[pick % m.live.length] as Holding);
  let count = 0;
  for (const h of m.live) if (h.growable) count++;
  if (count === 0) return null;
  let k = pick % count;
  for (const h of m.live) if (h.growable && k-- === 0) return h;
  return null;
}

/** Whether two answers are the same slots in the same order (both null counts as the same). */
function sameSlots(got: Int32Array | null | void, expect: Int32Array | null | void): boolean {
  if (!(got instanceof Int32Array) || !(expect instanceof Int32Array)) return !(got instanceof Int32Array) && !(expect instanceof Int32Array) && (got === expect || (got == null && expect == null));
  if (got.length !== expect.length) return false;
  for (let i = 0; i < got.length; i++) if (got[i] !== expect[i]) return false;
  return true;
}

function show(x: Int32Array | null): string {
  return x === null ? 'null' : `[${Array.from(x.subarray(0, 24)).join(', ')}${x.length > 24 ? `, … (${x.length})` : ''}]`;
}

/**
 * Calls the implementation and, in exact mode, the reference with the same inputs, and requires
 * the same answer. Inputs must not be scribbled before this returns.
 */
export function mirror<T extends Int32Array | null | void>(r: AllocatorReal, op: OpLabel, call: (a: PageAllocator) => T): T {
  const got = call(r.allocator);
  // A second path beside the checked allocator: whatever the call returns, the model reads only these.
  if (got !== undefined && got !== null && !(got instanceof Int32Array)) throw new LedgerViolation('return-type', `${op} returned ${kindOf(got)}, not an Int32Array or null`);
  if (r.shadow !== null) {
    const expect = call(r.shadow);
    if (!sameSlots(got, expect)) throw new LedgerViolation('exact', `${op} returned ${show(got ?? null)}, the reference ${show(expect ?? null)}`);
  }
  return got;
}

/**
 * One decode step of `holdings` (a token each): the lengths after it, each row's last slot (−1
 * for an empty row), and how many pages the step opens.
 */
export function decodeStepOf(holdings: readonly Holding[], pageSize: number): { seqLens: Int32Array; lastLoc: Int32Array; pagesNeeded: number } {
  const n = holdings.length;
  const seqLens = new Int32Array(n);
  const lastLoc = new Int32Array(n);
  let pagesNeeded = 0;
  for (let i = 0; i < n; i++) {
    const h = holdings[i] as Holding;
    const seq = h.sizeTokens + 1;
    seqLens[i] = seq;
    lastLoc[i] = seq === 1 ? -1 : slotAt(h, seq - 2, pageSize);
    if ((seq - 1) % pageSize === 0) pagesNeeded++;
  }
  return { seqLens, lastLoc, pagesNeeded };
}

/**
 * Appends newly allocated slots to a row, checking the row page structure (`row[i] % ps == i % ps`,
 * one page per page block, the partly filled block continuing in its own page).
 *
 * @returns the pages of the blocks the slots opened (the pages consumed).
 * @throws LedgerViolation naming the position and slot that break the structure.
 */
export function extendRow(h: Holding, slots: Int32Array, pageSize: number, op: OpLabel, contractRule: string | null = null): readonly number[] {
  return extendRowFrom(h, slots, 0, slots.length, pageSize, op, contractRule);
}

/**
 * {@link extendRow} of `count` slots of `out` from index `start`: a batch's rows read their slots
 * in place, with no view made per row.
 */
export function extendRowFrom(h: Holding, out: Int32Array, start: number, count: number, pageSize: number, op: OpLabel, contractRule: string | null = null): readonly number[] {
  // Most decode steps and many extends open no page: those share one empty list instead of making one.
  let newPages: number[] | null = null;
  const pre = h.sizeTokens;
  const posEnd = pre + count;
  // out[pos + shift] is the slot of row position pos.
  const shift = start - pre;
  let pos = pre;
  while (pos < posEnd) {
    const offset = pos % pageSize;
    const blockStart = pos - offset;
    // A block the row already holds continues in its page; a new block takes the page of its first slot.
    let page: number;
    if (offset !== 0 && pos === pre) {
      page = h.pages[h.pages.length - 1] as number;
    } else {
      const slot = out[pos + shift] as number;
      if (slot < 0 || slot % pageSize !== offset) badSlot(h, out.subarray(start, start + count), pre, pos, pageSize, op, contractRule);
      page = (slot - offset) / pageSize;
      (newPages ??= []).push(page);
    }
    const base = page * pageSize - blockStart;
    const end = Math.min(posEnd, blockStart + pageSize);
    for (; pos < end; pos++) if (out[pos + shift] !== base + pos) badSlot(h, out.subarray(start, start + count), pre, pos, pageSize, op, contractRule);
  }
  h.sizeTokens = posEnd;
  if (newPages === null) return kNoPages;
  for (const page of newPages) h.pages.push(page);
  h.heldBlocks += newPages.length;
  return newPages;
}

/** What {@link extendRow} returns when the slots opened no page. */
const kNoPages: readonly number[] = Object.freeze([]);

/** The violation for the slot at row position `pos`, which breaks the row page structure. */
function badSlot(h: Holding, slots: Int32Array, pre: number, pos: number, pageSize: number, op: OpLabel, contractRule: string | null): never {
  const slot = slots[pos - pre] as number;
  if (slot < 0 || slot % pageSize !== pos % pageSize) {
    throw new LedgerViolation('row-structure', `${op} put slot ${slot} at row position ${pos} of #${h.id}: slot % ${pageSize} must be ${pos % pageSize}`, contractRule);
  }
  const blockStart = pos - (pos % pageSize);
  const first = blockStart < pre ? (h.pages[h.pages.length - 1] as number) * pageSize : (slots[blockStart - pre] as number);
  const blockPage = Math.floor(first / pageSize);
  throw new LedgerViolation('row-structure', `${op} put slot ${slot} (page ${Math.floor(slot / pageSize)}) at row position ${pos} of #${h.id}, whose page block is in page ${blockPage}`, contractRule);
}

/**
 * A call the contract says must throw and change nothing: it must throw, and availableSize and
 * the snapshot (when one can be taken) must be as before. Only the implementation's own throw
 * counts as the rejection: a fault of the process bridge or a violation the validator raised
 * inside the call (a wrong return type) goes on up.
 *
 * @param deferrable - A24's choice inside an open free group: the implementation may accept the
 *   bad give-back at the call and refuse the group's `freeGroupEnd` instead. An accepted call is
 *   noted in `m.deferredBad` (the ledger records no give-back) and must leave availability as it
 *   was; see {@link endGroupWithDeferredBad}.
 */
export function expectRejected(m: AllocatorModel, r: AllocatorReal, op: OpLabel, call: (a: PageAllocator) => unknown, contractRule: string, deferrable = false): void {
  const availBefore = r.allocator.availableSize();
  const stateBefore = m.groupOpen ? null : snapshotCopy(r.allocator.backupState());
  let threw = false;
  try {
    withoutStacks(() => call(r.allocator));
  } catch (error) {
    if (isProviderFault(error) || error instanceof LedgerViolation) throw error;
    threw = true;
  }
  if (!threw && deferrable && m.groupOpen) {
    m.deferredBad.push(String(op));
    const availAfter = r.allocator.availableSize();
    if (availAfter !== availBefore) {
      throw new LedgerViolation('available-size', `${op} was accepted inside the open free group (to be refused at freeGroupEnd) but availableSize went ${availBefore} → ${availAfter}`, contractRule);
    }
    return;
  }
  if (!threw) throw new LedgerViolation('accepted-bad-input', `${op} must be rejected, but the allocator accepted it`, contractRule);
  const availAfter = r.allocator.availableSize();
  if (availAfter !== availBefore) {
    throw new LedgerViolation('rejected-changed-state', `${op} was rejected but availableSize went ${availBefore} → ${availAfter}`);
  }
  if (stateBefore !== null && !sameSnapshot(stateBefore, r.allocator.backupState())) {
    throw new LedgerViolation('rejected-changed-state', `${op} was rejected but backupState() differs from before the call`);
  }
}

/**
 * The end of a free group that holds a bad give-back the implementation accepted at the call
 * (A24's second choice): `freeGroupEnd` must be refused (A24) and change nothing (A17) —
 * availability as before, and the group still open, so a `freeGroupBegin` after it is refused as
 * nested. The model then recovers with `clear()` on both sides (every holding void, no group), as
 * the clear command does, and the run goes on.
 *
 * @param op - the command ending the group (`groupEnd()`, or the drain).
 */
export function endGroupWithDeferredBad(m: AllocatorModel, r: AllocatorReal, op: OpLabel): void {
  const bad = m.deferredBad.join('; ');
  const availBefore = r.allocator.availableSize();
  const refusedBy = (call: (a: PageAllocator) => void): boolean => {
    try {
      withoutStacks(() => call(r.allocator));
    } catch (error) {
      if (isProviderFault(error) || error instanceof LedgerViolation) throw error;
      return true;
    }
    return false;
  };
  if (!refusedBy((a) => a.freeGroupEnd())) {
    throw new LedgerViolation('accepted-bad-input', `${op}: freeGroupEnd must be refused, the open group holds a bad give-back the allocator accepted at the call: ${bad}`, 'A24');
  }
  const availAfter = r.allocator.availableSize();
  if (availAfter !== availBefore) {
    throw new LedgerViolation('rejected-changed-state', `${op}: freeGroupEnd was refused (the group holds ${bad}) but availableSize went ${availBefore} → ${availAfter}`);
  }
  if (!refusedBy((a) => a.freeGroupBegin())) {
    throw new LedgerViolation('rejected-changed-state', `${op}: freeGroupEnd was refused (the group holds ${bad}) but closed the group: a freeGroupBegin after it was accepted`);
  }
  if (r.allocator.availableSize() !== availBefore) {
    throw new LedgerViolation('rejected-changed-state', `${op}: the nested freeGroupBegin after the refused freeGroupEnd was refused but availableSize went ${availBefore} → ${r.allocator.availableSize()}`);
  }
  const recover = `clear() after ${op}`;
  mirror(r, recover, (a) => a.clear());
  m.ledger.reset();
  m.live = [];
  m.groupOpen = false;
  m.deferredBad = [];
  verifyQuiet(m, r, recover);
}

/**
 * Runs a call whose throw the model expects and drops, with stack capture off: the stacks of those
 * refusals are never read, and capturing them costs more than the call. What the model rethrows (a
 * violation, a provider fault) carries a rule or a code, which is what a failure prints.
 */
export function withoutStacks<T>(call: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return call();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function structuredCloneSafe(state: unknown): unknown {
  try {
    return structuredClone(state);
  } catch {
    return state;
  }
}

/** A snapshot copied before a call that must change nothing, with whether the copy is detached from the live state. */
interface SnapshotCopy {
  readonly state: unknown;
  readonly detached: boolean;
}

/** A copy of a plain object's field, as `structuredClone` makes it, or undefined for a field that needs `structuredClone` itself. */
function plainFieldCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  // Only the standard typed arrays: a subclass (a Buffer) has a `slice` of its own, and `structuredClone` drops the subclass.
  return kTypedArrayPrototypes.has(Object.getPrototypeOf(value)) ? (value as Int32Array).slice() : undefined;
}

const kTypedArrayPrototypes: ReadonlySet<object> = new Set([
  Int8Array.prototype,
  Uint8Array.prototype,
  Uint8ClampedArray.prototype,
  Int16Array.prototype,
  Uint16Array.prototype,
  Int32Array.prototype,
  Uint32Array.prototype,
  Float32Array.prototype,
  Float64Array.prototype,
  BigInt64Array.prototype,
  BigUint64Array.prototype,
]);

/**
 * `backupState()` copied as `structuredClone` would copy it, so that a provider whose snapshot is a
 * live reference into its state cannot hide a change: a plain object of primitives and typed
 * arrays (the in-process snapshot) is copied field by field, which is much cheaper than the
 * serializer; anything else goes through `structuredClone`.
 */
function snapshotCopy(state: unknown): SnapshotCopy {
  if (state !== null && typeof state === 'object' && Object.getPrototypeOf(state) === Object.prototype && Object.getOwnPropertySymbols(state).length === 0) {
    const copy: Record<string, unknown> = {};
    let plain = true;
    try {
      for (const key of Object.keys(state)) {
        const value = (state as Record<string, unknown>)[key];
        const field = plainFieldCopy(value);
        if (field === undefined && value !== undefined) {
          plain = false;
          break;
        }
        copy[key] = field;
      }
    } catch {
      // A getter that throws: `structuredClone` below meets it too, and falls back as it always did.
      plain = false;
    }
    if (plain) return { state: copy, detached: true };
  }
  try {
    return { state: structuredClone(state), detached: true };
  } catch {
    return { state, detached: false };
  }
}

/**
 * Whether the state after a rejected call is the one copied before it. A detached copy equal to the
 * snapshot as returned is the same state; anything else is compared clone to clone, as the copy was made.
 */
function sameSnapshot(before: SnapshotCopy, after: unknown): boolean {
  if (before.detached && isDeepStrictEqual(before.state, after)) return true;
  return isDeepStrictEqual(before.state, structuredCloneSafe(after));
}

/**
 * The checks after every command, each O(1) or O(pages the command touched): exact availableSize
 * against the ledger (conservation) and, for the reference, its own structure check. Disjointness
 * needs no walk here: every page a command hands to or takes from a row went through the ledger,
 * which refuses a page held by anyone else.
 */
export function afterCommand(m: AllocatorModel, r: AllocatorReal, op: OpLabel): void {
  m.executed++;
  verifyQuiet(m, r, op);
}

/** Builders whose availability mismatch breaks a rule of their own (CONTRACT.md); the rest is A11. */
const kQuietRuleOfBuilder: Readonly<Record<string, string>> = {
  freeRow: 'A12',
  freeSubset: 'A12',
  freeSegments: 'A12',
  groupBegin: 'A13',
  groupEnd: 'A13',
  restore: 'A14',
  clear: 'A15',
  drain: 'A16',
};

/** The rule an availableSize mismatch right after `op` breaks: its builder's, and A13 for a give-back inside a group. */
function quietRuleOf(op: OpLabel, groupOpen: boolean): string {
  const rule = kQuietRuleOfBuilder[/^\w+/.exec(String(op))?.[0] ?? ''] ?? 'A11';
  return rule === 'A12' && groupOpen ? 'A13' : rule;
}

/**
 * The checks of {@link afterCommand}, without counting a command. `wholeStructure` (a quiet point:
 * a restore, the start and end of the drain) adds the reference's own structure check, which
 * walks the whole pool.
 */
export function verifyQuiet(m: AllocatorModel, r: AllocatorReal, op: OpLabel, wholeStructure = false): void {
  const expectAvail = m.ledger.freePageCount * m.pageSize;
  const avail = r.allocator.availableSize();
  if (avail !== expectAvail) {
    throw new LedgerViolation(
      'available-size',
      `after ${op}: availableSize() = ${avail}, but the ledger has ${m.ledger.freePageCount} free pages × ${m.pageSize} = ${expectAvail} ` +
        `(${m.ledger.heldPageCount} held, ${m.ledger.queuedPageCount} queued in a free group)`,
      quietRuleOf(op, m.groupOpen),
    );
  }
  if (r.shadow !== null && r.shadow.availableSize() !== avail) {
    throw new LedgerViolation('exact', `after ${op}: availableSize() = ${avail}, the reference ${r.shadow.availableSize()}`);
  }
  const self = r.allocator as PageAllocator & { verifyInvariants?: () => void };
  if (wholeStructure && r.selfCheck && typeof self.verifyInvariants === 'function') self.verifyInvariants();
}

/**
 * The whole-structure check of a quiet point (a restore, the drain): every live row's pages are
 * held by that row in the ledger (disjointness), O(pages held).
 */
export function verifyHoldings(m: AllocatorModel, op: OpLabel): void {
  for (const h of m.live) {
    for (const page of h.pages) {
      if (page >= 0 && m.ledger.holderOf(page) !== h.id) throw new LedgerViolation('model', `after ${op}: #${h.id} holds page ${page} but the ledger says ${m.ledger.holderOf(page)}`);
    }
  }
}

/**
 * Records pages handed out to `holderId` in the ledger. When the implementation accepted a size
 * with a remainder, a page past `numPages` breaks A3 (its last slots lie past the KV buffers,
 * which hold `sizeTokens + pageSize` slots); the ledger reports the rest of A6.
 */
export function acquirePages(m: AllocatorModel, holderId: number, pages: readonly number[], op: OpLabel): void {
  if (m.sizeRemainderAccepted) {
    const past = pages.find((page) => page > m.ledger.numPages);
    if (past !== undefined) {
      throw new LedgerViolation('page-range', `${op} handed out page ${past}, past numPages ${m.ledger.numPages} = floor(sizeTokens ${m.ledger.numPages * m.pageSize + (m.geometry.sizeExtraTokens ?? 0)} / pageSize ${m.pageSize})`, 'A3');
    }
  }
  m.ledger.acquire(holderId, pages, op);
}

/** Records in the ledger that a holding gave `pages` back. */
export function giveBack(m: AllocatorModel, h: Holding, pages: readonly number[], op: OpLabel): void {
  m.ledger.release(h.id, pages, m.groupOpen, op);
}

export function removeHolding(m: AllocatorModel, h: Holding): void {
  const i = m.live.indexOf(h);
  if (i >= 0) m.live.splice(i, 1);
}
