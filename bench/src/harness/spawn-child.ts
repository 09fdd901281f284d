/**
 * Starts a child process for one variant of one bench file (its bundle, child-bundles.ts) and
 * talks to it (child-protocol.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { kChildReplyMarker, type CaseStats, type ChildCommand, type ChildPort, type ChildReply, type ChildStart, type WarmupStats } from './child-protocol.js';
import { childBundlePath, kChildBundleDir } from './child-bundles.js';
import { childEnv } from './child-env.js';
import type { Pinning } from './pinning.js';

/** The bench package directory: children run here. */
export const kBenchDir = fileURLToPath(new URL('../../', import.meta.url));

/** A reply that takes longer than this means the child is stuck (the slowest setup takes a few seconds). */
export const kReplyTimeoutMs = 120_000;
/** Characters of a failed child's stderr kept for the error message. */
const kStderrTailChars = 2_000;

/**
 * V8 flags of every child. `--expose-gc`: mitata collects garbage with the real GC before each
 * slice (without it, mitata allocates 1 GiB to force one). `--no-concurrent-recompilation`: on a
 * pinned core the background compiler would share the core with the timed code, and when the
 * optimized code lands — during warm-up or mid-measurement — varied from child to child;
 * compiling on the main thread during warm-up makes every child time the same code.
 * `--allow-natives-syntax`: the warm-up asks V8 whether the timed function runs TurboFan code yet
 * (run-child.ts); it changes no compilation.
 */
export const kChildV8Flags: readonly string[] = ['--expose-gc', '--no-concurrent-recompilation', '--allow-natives-syntax'];

/** The argument vector of a child: pinning prefix, node with {@link kChildV8Flags} and the file's bundle. */
export function childCommand(start: ChildStart, pinning: Pinning, bundleDir: string = kChildBundleDir): { command: string; args: string[] } {
  const node = [process.execPath, ...kChildV8Flags, childBundlePath(start.file, bundleDir), JSON.stringify(start)];
  const full = [...pinning.prefix, ...node];
  return { command: full[0] as string, args: full.slice(1) };
}

/** A running child process. */
class ProcessChild implements ChildPort {
  private stderr = '';
  private readonly replies: ChildReply[] = [];
  private waiting: ((r: ChildReply | null) => void) | null = null;
  private exited = false;
  checks = false;
  empty: CaseStats = { p50Ns: 0, p25Ns: 0, p75Ns: 0, minNs: 0, avgNs: 0, samples: 0, calls: 0, cpuShare: 1 };

  constructor(
    private readonly start: ChildStart,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-kStderrTailChars);
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith(kChildReplyMarker)) return;
      this.deliver(JSON.parse(line.slice(kChildReplyMarker.length)) as ChildReply);
    });
    child.on('close', () => {
      this.exited = true;
      this.waiting?.(null);
    });
  }

  private deliver(r: ChildReply): void {
    if (this.waiting !== null) this.waiting(r);
    else this.replies.push(r);
  }

  private failure(why: string): Error {
    return new Error(`child ${this.start.file} ${this.start.variant}: ${why}\n${this.stderr.trim()}`);
  }

  /** The next reply of the expected kind. @throws Error on an error reply, an exit or a timeout. */
  async next<K extends ChildReply['op']>(op: K): Promise<Extract<ChildReply, { op: K }>> {
    const queued = this.replies.shift();
    const r =
      queued ??
      (this.exited
        ? null
        : await new Promise<ChildReply | null>((resolvePromise) => {
            const timer = setTimeout(() => resolvePromise({ op: 'error', message: `no reply within ${kReplyTimeoutMs / 1000}s` }), kReplyTimeoutMs);
            this.waiting = (reply) => {
              clearTimeout(timer);
              this.waiting = null;
              resolvePromise(reply);
            };
          }));
    if (r === null) throw this.failure(`exited with ${String(this.child.exitCode ?? this.child.signalCode)} while a reply was awaited`);
    if (r.op === 'error') throw this.failure(r.message);
    if (r.op !== op) throw this.failure(`replied ${r.op}, expected ${op}`);
    return r as Extract<ChildReply, { op: K }>;
  }

  send(command: ChildCommand): void {
    this.child.stdin.write(`${JSON.stringify(command)}\n`);
  }

  async setup(index: number): Promise<WarmupStats> {
    this.send({ op: 'setup', index });
    return (await this.next('setup')).warmup;
  }

  async measure(index: number, ms: number): Promise<CaseStats> {
    this.send({ op: 'measure', index, ms });
    return (await this.next('measure')).stats;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const closed = new Promise<void>((resolvePromise) => this.child.once('close', () => resolvePromise()));
    this.send({ op: 'exit' });
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), kReplyTimeoutMs);
    await closed;
    clearTimeout(timer);
  }
}

/**
 * Starts a child and waits until it has measured its empty function. The file's bundle must have
 * been written (`bundleChildren`) in this run.
 *
 * @throws Error with the child's stderr tail when it fails to start.
 */
export async function startChild(start: ChildStart, pinning: Pinning, bundleDir: string = kChildBundleDir): Promise<ChildPort> {
  const { command, args } = childCommand(start, pinning, bundleDir);
  const proc = spawn(command, args, { cwd: kBenchDir, stdio: ['pipe', 'pipe', 'pipe'], env: childEnv() });
  const child = new ProcessChild(start, proc);
  const spawned = new Promise<void>((resolvePromise, reject) => {
    proc.once('spawn', () => resolvePromise());
    proc.once('error', reject);
  });
  await spawned;
  try {
    const ready = await child.next('ready');
    child.checks = ready.checks;
    child.empty = ready.empty;
  } catch (error) {
    proc.kill('SIGKILL');
    throw error;
  }
  return child;
}
