// Worker side of the process bridge (plain JavaScript: it must load in any runtime, with or
// without a TypeScript loader). It owns the provider process and its pipes; the main thread sends
// one request line and blocks on Atomics.wait until this worker has written the reply line into
// the shared buffer.
//
// Shared layout (Int32Array over the SharedArrayBuffer): [0] state (0 waiting, 1 reply ready,
// 2 fault), [1] byte length of the text that follows at byte offset 16, [2] the id of the call the
// reply answers.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parentPort, workerData } from 'node:worker_threads';

const { command, shared } = workerData;
const header = new Int32Array(shared, 0, 3);
const body = new Uint8Array(shared, 16);
const encoder = new TextEncoder();
const kStderrKeep = 4000;

let stderrTail = '';
let exited = null;
const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'pipe'] });

function publish(state, text, id = 0) {
  const bytes = encoder.encode(text);
  if (bytes.length > body.length) {
    publish(2, `reply of ${bytes.length} bytes exceeds the bridge buffer of ${body.length} bytes`);
    return;
  }
  body.set(bytes, 0);
  Atomics.store(header, 1, bytes.length);
  Atomics.store(header, 2, id);
  Atomics.store(header, 0, state);
  Atomics.notify(header, 0);
}

const pending = [];
createInterface({ input: child.stdout }).on('line', (line) => {
  if (pending.length === 0) {
    publish(2, `the provider wrote a line nobody asked for: ${line.slice(0, 200)}`);
    return;
  }
  publish(1, line, pending.shift());
});
child.stderr.on('data', (chunk) => {
  stderrTail = (stderrTail + chunk.toString()).slice(-kStderrKeep);
});
child.on('error', (error) => publish(2, `could not start \`${command}\`: ${error.message}`));
child.on('exit', (code, signal) => {
  exited = signal ?? code;
  if (pending.length > 0) publish(2, `the provider exited (${exited}) before replying${stderrTail ? `; its stderr ends:\n${stderrTail}` : ''}`);
});
child.stdin.on('error', () => {});

parentPort.on('message', (message) => {
  if (message.type === 'call') {
    if (exited !== null) {
      publish(2, `the provider has exited (${exited})${stderrTail ? `; its stderr ends:\n${stderrTail}` : ''}`);
      return;
    }
    pending.push(message.id);
    child.stdin.write(`${message.line}\n`);
  } else if (message.type === 'stderr') {
    parentPort.postMessage({ type: 'stderr', text: stderrTail });
  } else if (message.type === 'close') {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 1000);
    child.on('exit', () => {
      clearTimeout(timer);
      process.exit(0);
    });
    if (exited !== null) process.exit(0);
  }
});
