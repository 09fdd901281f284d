// Worker side of the process bridge (plain JavaScript: it must load in any runtime, with or
// without a TypeScript loader). It starts the provider under the supervisor
// (provider-supervisor.mjs) and owns the pipes; the main thread sends one request line and blocks
// on Atomics.wait until this worker has put the reply line (or a fault) into the shared buffer.
//
// Shared layout: an Int32Array header of kHeaderWords words —
//   [0] state: 0 waiting, 1 reply ready, 2 fault
//   [1] byte length of the reply or fault text at the body
//   [2] the id of the call the reply answers
//   [3] 1 once the provider's process group is gone (after a close)
//   [4] byte length of the stderr tail, written once at [3]
// — then kStderrBytesMax bytes of stderr tail, then the body.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const { launch, shared, layout, limits } = workerData;
const header = new Int32Array(shared, 0, layout.headerWords);
const stderrArea = new Uint8Array(shared, layout.headerWords * 4, layout.stderrBytesMax);
const body = new Uint8Array(shared, layout.headerWords * 4 + layout.stderrBytesMax);
const encoder = new TextEncoder();
/** The calls a line of stdout may answer, oldest first, as { id, op } (one in practice: calls are synchronous). */
const pending = [];

/** "while answering alloc", for a fault that cut a call short. */
const answering = () => (pending.length > 0 ? ` while answering ${pending[0].op}` : '');

let stderrTail = '';
/** How the provider ended, in words ("exited with code 3"), once the supervisor reported it. */
let ending = null;
let faulted = false;
let stdoutEnded = false;

const supervisor = spawn(process.execPath, [fileURLToPath(new URL('./provider-supervisor.mjs', import.meta.url)), JSON.stringify({ file: launch.file, args: launch.args, graceMs: limits.stopGraceMs })], {
  detached: true,
  stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
});
const pgid = supervisor.pid;
const lifeline = supervisor.stdio[3];

function publish(state, bytes, id = 0) {
  body.set(bytes.subarray(0, body.length), 0);
  Atomics.store(header, 1, Math.min(bytes.length, body.length));
  Atomics.store(header, 2, id);
  Atomics.store(header, 0, state);
  Atomics.notify(header, 0);
}

/** Publishes the first fault only, and stops the provider: after a fault nothing it says counts. */
function fault(text) {
  if (faulted) return;
  faulted = true;
  publish(2, encoder.encode(text));
  stop();
}

function describeEnding(code, signal) {
  // V8 reports running out of heap on stderr, then aborts (a shell in between turns that into 134).
  const aborted = signal === 'SIGABRT' || code === 134;
  if (aborted && /heap out of memory/i.test(stderrTail)) return `ran out of memory (${launch.memoryMib === null ? 'its heap limit' : `--provider-memory ${launch.memoryMib} MiB`})`;
  if (signal !== null) return signal === 'SIGABRT' ? 'aborted (SIGABRT)' : `was killed by ${signal}`;
  // Node's code for a top-level await that never settled once nothing else was left to run.
  if (code === 13 && launch.memoryMib !== null) return 'exited with code 13 (a top-level await that never settles)';
  return `exited with code ${code}`;
}

// ---- stdout: bounded lines -------------------------------------------------------------------

let chunks = [];
let chunkBytes = 0;
supervisor.stdout.on('data', (chunk) => {
  let start = 0;
  for (;;) {
    const newline = chunk.indexOf(10, start);
    if (newline < 0) break;
    const part = chunk.subarray(start, newline);
    const line = chunks.length === 0 ? part : Buffer.concat([...chunks, part]);
    chunks = [];
    chunkBytes = 0;
    start = newline + 1;
    if (line.length > limits.replyBytesMax) {
      fault(`wrote a reply line longer than ${limits.replyBytesMax} bytes${answering()}`);
      return;
    }
    onLine(line);
    if (faulted) return;
  }
  if (start < chunk.length) {
    chunks.push(chunk.subarray(start));
    chunkBytes += chunk.length - start;
    if (chunkBytes > limits.replyBytesMax) {
      chunks = [];
      supervisor.stdout.destroy();
      fault(`wrote a reply line longer than ${limits.replyBytesMax} bytes${answering()}`);
    }
  }
});
supervisor.stdout.on('end', () => {
  stdoutEnded = true;
  if (pending.length > 0) setTimeout(() => pending.length > 0 && fault(`${ending ?? 'closed its stdout'}${answering()}`), limits.exitDrainMs);
});
supervisor.stdout.on('error', () => {});

function onLine(line) {
  if (faulted) return;
  if (pending.length === 0) {
    const shown = new TextDecoder().decode(line.subarray(0, 200));
    fault(`wrote a line nobody asked for: ${shown}`);
    return;
  }
  publish(1, line, pending.shift().id);
}

// ---- stderr: the tail, kept for messages -----------------------------------------------------

supervisor.stderr.on('data', (chunk) => {
  stderrTail = (stderrTail + chunk.toString()).slice(-limits.stderrCharsMax);
});
supervisor.stderr.on('error', () => {});
supervisor.stdin.on('error', () => {});

// ---- lifeline: the supervisor's reports --------------------------------------------------------

let lifelineText = '';
lifeline.on('data', (chunk) => {
  lifelineText += chunk.toString();
  let newline;
  while ((newline = lifelineText.indexOf('\n')) >= 0) {
    const line = lifelineText.slice(0, newline);
    lifelineText = lifelineText.slice(newline + 1);
    let event;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (event.event === 'exit') onProviderExit(event.code, event.signal);
    else if (event.event === 'spawn-error') {
      ending = `could not be started (${event.message})`;
      fault(ending);
    }
  }
});
lifeline.on('error', () => {});

function onProviderExit(code, signal) {
  // What the provider wrote before it went is still in the pipes: read it before judging (a reply
  // may be there, and V8's out-of-memory message on stderr), with a bound for forked holders.
  let judged = false;
  const judge = () => {
    if (judged) return;
    judged = true;
    ending = describeEnding(code, signal);
    if (pending.length > 0) fault(`${ending}${answering()}`);
  };
  setTimeout(judge, limits.exitDrainMs);
  const whenEnded = (stream, ended) => (ended() ? Promise.resolve() : new Promise((resolve) => stream.once('close', resolve)));
  void Promise.all([whenEnded(supervisor.stdout, () => stdoutEnded || supervisor.stdout.destroyed), whenEnded(supervisor.stderr, () => supervisor.stderr.destroyed)]).then(() => setImmediate(judge));
}

// ---- stopping -----------------------------------------------------------------------------------

let stopRequested = false;

/** Asks the supervisor to stop the group (closing the lifeline), with a forced kill as the backstop. */
function stop() {
  if (stopRequested) return;
  stopRequested = true;
  supervisor.stdin.end();
  lifeline.end();
  // The supervisor kills the group itself within its grace; this only covers a supervisor that is stuck.
  setTimeout(() => killGroup(), limits.stopGraceMs + limits.stopSlackMs).unref();
}

function killGroup() {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already empty.
  }
}

supervisor.on('error', (error) => fault(`could not start the supervisor: ${error.message}`));
supervisor.on('exit', () => {
  // Whatever the supervisor left behind (nothing, normally) goes now.
  killGroup();
  // The group is gone, so its pipes close at once: read what is left in them first (bounded all the same).
  const closed = (stream) => (stream.destroyed ? Promise.resolve() : new Promise((resolve) => stream.once('close', resolve)));
  const drained = Promise.all([closed(supervisor.stdout), closed(supervisor.stderr)]);
  void Promise.race([drained, new Promise((resolve) => setTimeout(resolve, limits.exitDrainMs))]).then(finish);
});

/** Hands the stderr tail to the main thread and says the provider is gone. */
function finish() {
  const bytes = encoder.encode(stderrTail).subarray(0, stderrArea.length);
  stderrArea.set(bytes, 0);
  Atomics.store(header, 4, bytes.length);
  if (pending.length > 0) fault(`${ending ?? 'stopped'}${answering()}`);
  Atomics.store(header, 3, 1);
  Atomics.notify(header, 3);
  parentPort.close();
}

parentPort.on('message', (message) => {
  if (message.type === 'call') {
    if (faulted) return;
    pending.push({ id: message.id, op: message.op });
    if (ending !== null) {
      fault(`${ending} before ${message.op}`);
      return;
    }
    supervisor.stdin.write(`${message.line}\n`);
  } else if (message.type === 'close') {
    stop();
  }
});
