import { Worker } from 'node:worker_threads';
import { ProviderFault } from '../provider-fault.js';
import { describeThrown } from '../text/describe-thrown.js';
import type { ProviderLaunch } from './provider-launch.js';

/** Bytes one reply line may have: a whole pool's slots as JSON fits with room to spare; a longer line is a fault. */
export const kReplyBytesMax = 16 * 1024 * 1024;
/** Characters of the provider's stderr kept for messages: a traceback's end, not a log. */
const kStderrCharsMax = 4_000;
/** Bytes the stderr tail takes in the shared buffer: room for every kept character at 4 bytes in UTF-8. */
const kStderrBytesMax = 4 * kStderrCharsMax;
/** Header words: state, reply bytes, reply id, closed flag, stderr bytes (see process-bridge-worker.mjs). */
const kHeaderWords = 8;
/**
 * How long the supervisor gives the group to leave after SIGTERM before SIGKILL: enough for a
 * provider to flush and exit, short enough that a stuck one costs the user under a second.
 */
export const kStopGraceMs = 500;
/** Beyond the grace: the supervisor's own scan and exit, before the worker kills the group itself. */
const kStopSlackMs = 1_000;
/** The longest a close waits for the provider's group to be gone: the grace, the slack, and margin for a loaded machine. */
const kCloseWaitMs = kStopGraceMs + kStopSlackMs + 1_000;
/** After the provider exits, how long its pipes get to deliver what it wrote before the fault is judged. */
const kExitDrainMs = 250;

if (kCloseWaitMs <= kStopGraceMs + kStopSlackMs) throw new Error('kCloseWaitMs must outlast the supervisor and its backstop');

/** Shared header words (see process-bridge-worker.mjs). */
const Word = { State: 0, ReplyBytes: 1, ReplyId: 2, Closed: 3, StderrBytes: 4 } as const;
/** Values of the state word. */
const State = { Waiting: 0, Reply: 1, Fault: 2 } as const;

/** A reply line as parsed; `ok` is checked, the rest is the caller's to read. */
export interface BridgeReply {
  readonly ok: boolean;
  readonly error?: unknown;
  readonly [field: string]: unknown;
}

/**
 * Hears every line the bridge exchanges with the provider, as it goes: `sent` (a request),
 * `received` (a reply), or `fault` (why a request got no usable reply: the fault's message).
 */
export type BridgeListener = (direction: 'sent' | 'received' | 'fault', line: string) => void;

/** How long the bridge waits (milliseconds). */
export interface BridgeTimeouts {
  /** The longest wait for the reply to `hello` (the process starting). */
  readonly startTimeoutMs: number;
  /** The longest wait for any other reply. */
  readonly callTimeoutMs: number;
}

/**
 * A synchronous request/reply channel to a provider process. The model drives allocators with
 * plain synchronous calls, so the process's pipes live in a worker thread and each call blocks on
 * `Atomics.wait` until the worker has the reply (or the timeout passes). The worker runs the
 * provider under a supervisor in a process group of its own, which stops the whole group when the
 * bridge closes or the validator dies.
 *
 * Invariants: (1) after the first fault the bridge stays broken: every later call fails at once,
 * so a late reply can never be taken for the answer to another request; (2) {@link fault} is the
 * only source of "the provider failed" — never a name on an error.
 */
export class ProcessBridge {
  private readonly worker: Worker;
  private readonly header: Int32Array;
  private readonly stderrArea: Uint8Array;
  private readonly body: Uint8Array;
  private readonly decoder = new TextDecoder();
  private broken: ProviderFault | null = null;
  private callId = 0;
  private closed = false;
  /** Hears every line while set (a violation's transcript); null otherwise, which costs nothing. */
  private listener: BridgeListener | null = null;

  /**
   * @param launch - the program that serves the protocol, and how to describe its end.
   * @param timeouts - the waits for the greeting and for each reply (milliseconds).
   */
  constructor(
    readonly launch: ProviderLaunch,
    readonly timeouts: BridgeTimeouts,
  ) {
    const shared = new SharedArrayBuffer(kHeaderWords * 4 + kStderrBytesMax + kReplyBytesMax);
    this.header = new Int32Array(shared, 0, kHeaderWords);
    this.stderrArea = new Uint8Array(shared, kHeaderWords * 4, kStderrBytesMax);
    this.body = new Uint8Array(shared, kHeaderWords * 4 + kStderrBytesMax);
    const layout = { headerWords: kHeaderWords, stderrBytesMax: kStderrBytesMax };
    const limits = { replyBytesMax: kReplyBytesMax, stderrCharsMax: kStderrCharsMax, stopGraceMs: kStopGraceMs, stopSlackMs: kStopSlackMs, exitDrainMs: kExitDrainMs };
    this.worker = new Worker(new URL('./process-bridge-worker.mjs', import.meta.url), { workerData: { launch, shared, layout, limits }, execArgv: [] });
    // The validator may end without waiting for the worker: the supervisor sees the lifeline close
    // when this process goes, however it goes, and stops the provider then.
    this.worker.unref();
    // A worker that failed leaves the calls to time out; the failure is kept for the message, not thrown at whoever runs the loop next.
    this.worker.on('error', (error: unknown) => {
      this.broken ??= new ProviderFault(`the process bridge failed: ${describeThrown(error)}`);
    });
  }

  /** The first fault, or null while the provider has kept the protocol. */
  get fault(): ProviderFault | null {
    return this.broken;
  }

  /**
   * Has every line from now on (requests, replies, a fault) heard by `listener`, until it is
   * replaced or set to null.
   */
  listen(listener: BridgeListener | null): void {
    this.listener = listener;
  }

  /**
   * Sends one request and returns its reply.
   *
   * @param timeoutMs - the longest wait; `hello` gets the start timeout by default.
   * @throws ProviderFault when the process is gone, replies with something that is not a JSON
   *   object with a boolean `ok`, or does not reply within the timeout.
   */
  call(request: { readonly op: string; readonly [field: string]: unknown }, timeoutMs?: number): BridgeReply {
    if (this.broken !== null) throw this.broken;
    if (this.closed) return this.fail(`${request.op} after the provider was closed`);
    const id = ++this.callId;
    // An old reply is cleared; a fault the worker published meanwhile stays and is reported.
    Atomics.compareExchange(this.header, Word.State, State.Reply, State.Waiting);
    const line = JSON.stringify(request);
    this.worker.postMessage({ type: 'call', id, op: request.op, line });
    this.listener?.('sent', line);
    const waitMs = timeoutMs ?? (request.op === 'hello' ? this.timeouts.startTimeoutMs : this.timeouts.callTimeoutMs);
    const deadline = Date.now() + waitMs;
    for (;;) {
      const state = Atomics.load(this.header, Word.State);
      if (state === State.Fault) return this.fail(this.bodyText());
      if (state === State.Reply && Atomics.load(this.header, Word.ReplyId) === id) break;
      const left = deadline - Date.now();
      if (left <= 0) return this.fail(this.timeoutMessage(request.op, waitMs));
      Atomics.wait(this.header, Word.State, state, left);
    }
    const text = this.bodyText();
    this.listener?.('received', text);
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      return this.fail(`the reply to ${request.op} is not JSON: ${text.slice(0, 200)}`);
    }
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply) || typeof (reply as { ok?: unknown }).ok !== 'boolean') {
      return this.fail(`the reply to ${request.op} has no boolean "ok": ${text.slice(0, 200)}`);
    }
    return reply as BridgeReply;
  }

  /**
   * Stops the provider (its whole process group: SIGTERM, a grace, SIGKILL) and waits, bounded,
   * until the group is gone.
   *
   * @returns the tail of what the provider wrote on stderr.
   */
  close(): string {
    if (!this.closed) {
      this.closed = true;
      this.worker.postMessage({ type: 'close' });
    }
    const deadline = Date.now() + kCloseWaitMs;
    while (Atomics.load(this.header, Word.Closed) === 0) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      Atomics.wait(this.header, Word.Closed, 0, left);
    }
    return this.decoder.decode(this.stderrArea.slice(0, Atomics.load(this.header, Word.StderrBytes)));
  }

  private bodyText(): string {
    return this.decoder.decode(this.body.slice(0, Atomics.load(this.header, Word.ReplyBytes)));
  }

  private timeoutMessage(op: string, waitMs: number): string {
    if (op === 'hello') return `did not answer hello within ${waitMs} ms (--start-timeout)`;
    if (op === 'load') return `did not finish loading within ${waitMs} ms (--call-timeout; a top-level await that never settles?)`;
    return `did not answer ${op} within ${waitMs} ms (--call-timeout)`;
  }

  private fail(message: string): never {
    this.broken ??= new ProviderFault(message);
    this.listener?.('fault', this.broken.message);
    // Stop the provider now, not at the end: a hung one may be spinning a core meanwhile.
    if (!this.closed) {
      this.closed = true;
      this.worker.postMessage({ type: 'close' });
    }
    throw this.broken;
  }
}
