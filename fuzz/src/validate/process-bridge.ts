import { Worker } from 'node:worker_threads';
import { ProviderFault } from '../provider-fault.js';

/** Bytes the bridge can carry in one reply: a whole pool's slots as JSON fits with room to spare. */
const kReplyBytesMax = 16 * 1024 * 1024;

/** Header: [0] state (0 waiting, 1 reply, 2 fault), [1] reply bytes, [2] id of the call the reply answers. */
const kHeaderBytes = 16;

/** A reply line as parsed; `ok` is checked, the rest is the caller's to read. */
export interface BridgeReply {
  readonly ok: boolean;
  readonly error?: string;
  readonly [field: string]: unknown;
}

/**
 * A synchronous request/reply channel to a provider process. The model drives allocators with
 * plain synchronous calls, so the process's pipes live in a worker thread and each call blocks on
 * `Atomics.wait` until the worker has the reply (or the per-call timeout passes). After any fault
 * the bridge stays broken: every later call fails at once, so a late reply can never be taken for
 * the answer to another request.
 */
export class ProcessBridge {
  private readonly worker: Worker;
  private readonly header: Int32Array;
  private readonly body: Uint8Array;
  private readonly decoder = new TextDecoder();
  private broken: string | null = null;
  private callId = 0;

  /**
   * @param command - a shell command line that starts the provider.
   * @param callTimeoutMs - the longest wait for one reply (milliseconds).
   */
  constructor(
    readonly command: string,
    readonly callTimeoutMs: number,
  ) {
    const shared = new SharedArrayBuffer(kHeaderBytes + kReplyBytesMax);
    this.header = new Int32Array(shared, 0, 3);
    this.body = new Uint8Array(shared, kHeaderBytes);
    this.worker = new Worker(new URL('./process-bridge-worker.mjs', import.meta.url), { workerData: { command, shared }, execArgv: [] });
    this.worker.unref();
  }

  /**
   * Sends one request and returns its reply.
   *
   * @throws ProviderFault when the process is gone, replies with something that is not a JSON
   *   object with a boolean `ok`, or does not reply within the timeout.
   */
  call(request: { readonly op: string; readonly [field: string]: unknown }): BridgeReply {
    if (this.broken !== null) throw new ProviderFault(this.broken);
    const id = ++this.callId;
    Atomics.store(this.header, 0, 0);
    this.worker.postMessage({ type: 'call', id, line: JSON.stringify(request) });
    // Wake-ups can be stale (the previous reply's notify may land after the reset above), so wait
    // until the state says a reply to THIS call is there, or the time is up.
    const deadline = Date.now() + this.callTimeoutMs;
    while (Atomics.load(this.header, 0) === 0 || (Atomics.load(this.header, 0) === 1 && Atomics.load(this.header, 2) !== id)) {
      const left = deadline - Date.now();
      if (left <= 0) return this.fail(`\`${this.command}\` did not answer ${request.op} within ${this.callTimeoutMs} ms`);
      Atomics.wait(this.header, 0, Atomics.load(this.header, 0), left);
    }
    const state = Atomics.load(this.header, 0);
    const text = this.decoder.decode(this.body.slice(0, Atomics.load(this.header, 1)));
    if (state === 2) return this.fail(text);
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      return this.fail(`the reply to ${request.op} is not JSON: ${text.slice(0, 200)}`);
    }
    if (typeof reply !== 'object' || reply === null || typeof (reply as { ok?: unknown }).ok !== 'boolean') {
      return this.fail(`the reply to ${request.op} has no boolean "ok": ${text.slice(0, 200)}`);
    }
    return reply as BridgeReply;
  }

  /** Ends the process (politely, then by force) and the worker. */
  close(): void {
    this.worker.postMessage({ type: 'close' });
  }

  private fail(message: string): never {
    this.broken = message;
    throw new ProviderFault(message);
  }
}
