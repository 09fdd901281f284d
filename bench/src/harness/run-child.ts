/**
 * A child process: holds one variant (checks on or off) of one bench file, builds and warms up a
 * case when told, and times it with mitata's `measure` one slice at a time. Its entry is the bench
 * file's bundle (child-bundles.ts), which calls {@link runChild} with the file's pairs; the
 * orchestrator starts it as `node --expose-gc --no-concurrent-recompilation
 * out/children/<package>.<op>.mjs '<ChildStart JSON>'`, and the other variant's JIT feedback never
 * exists in this process. See child-protocol.ts for the conversation.
 */
import { createInterface } from 'node:readline';
import { measure } from 'mitata';
import { kVariants, type BenchArgs, type BenchPair, type TimedOp } from './bench-pair.js';
import { kChildReplyMarker, type CaseStats, type ChildCommand, type ChildReply, type ChildStart, type WarmupStats } from './child-protocol.js';
import { keepUnoptimized, turboFanProbe } from './tier-probe.js';
import { kBatchSamples, kBatchThresholdNs, kSamplesMax, kSamplesMin, kWarmupMsMax } from './measure-settings.js';

/** The empty function is only the floor the cases are compared to: a short warm-up and slice. */
const kEmptyWarmupMs = 10;
const kEmptySliceMs = 20;
/** How often the warm-up asks whether the timed function is optimized (calls). */
const kProbeEvery = 16;

type MitataStats = Awaited<ReturnType<typeof measure>>;

function reply(r: ChildReply): void {
  process.stdout.write(`${kChildReplyMarker}${JSON.stringify(r)}\n`);
}

/** Process CPU time (user + system) in µs. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

const isTurboFanned = turboFanProbe();
keepUnoptimized(warmUp);

/**
 * Untimed calls for at least `warmupMs`, then on until the timed function runs TurboFan code (see
 * tier-probe.ts), at most {@link kWarmupMsMax} in all.
 */
function warmUp(op: TimedOp, warmupMs: number): WarmupStats {
  const start = performance.now();
  let optimized = false;
  let calls = 0;
  // Bounded by time, not by calls: every kProbeEvery calls the clock is read, and kWarmupMsMax
  // ends it; a call cap would end a fast call's warm-up before its first probe.
  for (; ; calls++) {
    if (calls % kProbeEvery === 0) {
      const ms = performance.now() - start;
      if (ms >= warmupMs) {
        optimized = isTurboFanned?.(op.fn) ?? false;
        if (optimized || isTurboFanned === null || ms >= kWarmupMsMax) break;
      }
    }
    if (op.kind === 'fn') op.fn();
    else (op.fn as (p: unknown) => void)(op.next());
  }
  return { ms: performance.now() - start, calls, optimized: isTurboFanned === null ? null : optimized };
}

/** One slice: mitata times the already built op for at least `ms` of CPU time. */
async function measureSlice(op: TimedOp, ms: number): Promise<CaseStats> {
  function* bench(): Generator<unknown, void, undefined> {
    if (op.kind === 'fn') yield op.fn;
    // mitata's computed parameter: `0` is called untimed before each timed call of `bench`.
    else yield { 0: op.next, bench: op.fn };
  }
  const cpuStart = cpuMicros();
  const wallStart = performance.now();
  const s: MitataStats = await measure(bench as Parameters<typeof measure>[0], {
    min_cpu_time: ms * 1e6,
    batch_samples: kBatchSamples,
    batch_threshold: kBatchThresholdNs,
    min_samples: kSamplesMin,
    max_samples: kSamplesMax,
  });
  const cpuShare = (cpuMicros() - cpuStart) / 1000 / (performance.now() - wallStart);
  return { p50Ns: s.p50, p25Ns: s.p25, p75Ns: s.p75, minNs: s.min, avgNs: s.avg, samples: s.samples.length, calls: s.ticks, cpuShare };
}

async function main(raw: string | undefined, pairs: readonly BenchPair[]): Promise<void> {
  if (raw === undefined) throw new Error('a bench child needs a ChildStart JSON argument');
  const start = JSON.parse(raw) as ChildStart;
  const variant = kVariants.find((v) => v.id === start.variant);
  if (variant === undefined) throw new Error(`unknown variant ${String(start.variant)}`);
  const checks = start.aa ? false : variant.checks;
  const noop: TimedOp = { kind: 'fn', fn: () => {} };
  warmUp(noop, kEmptyWarmupMs);
  reply({ op: 'ready', checks, empty: await measureSlice(noop, kEmptySliceMs) });
  // current: the op of the case last set up; its state lives until the next setup.
  let current: { index: number; op: TimedOp } | null = null;
  for await (const line of createInterface({ input: process.stdin })) {
    const command = JSON.parse(line) as ChildCommand;
    if (command.op === 'exit') break;
    if (command.op === 'setup') {
      const c = start.cases[command.index];
      const pair = pairs[c?.pairIndex ?? -1] as BenchPair | undefined;
      const args = pair?.points[c?.pointIndex ?? -1] as BenchArgs | undefined;
      if (c === undefined || pair === undefined || args === undefined) throw new Error(`${start.file} has no case ${command.index}`);
      current = null;
      const op = pair.setup(args, checks, start.context);
      const warmup = warmUp(op, start.warmupMs);
      current = { index: command.index, op };
      reply({ op: 'setup', index: command.index, warmup });
    } else {
      if (current?.index !== command.index) throw new Error(`measure of case ${command.index} before its setup`);
      reply({ op: 'measure', index: command.index, stats: await measureSlice(current.op, command.ms) });
    }
  }
}

/**
 * Runs the child: `raw` is its ChildStart JSON, `pairs` what its bench file default-exports. A
 * failure is replied as an `error` (the orchestrator shows it) and sets the exit code.
 */
export async function runChild(raw: string | undefined, pairs: unknown): Promise<void> {
  try {
    if (!Array.isArray(pairs)) throw new Error('the bench file does not default-export an array of benchPair(...)');
    await main(raw, pairs as readonly BenchPair[]);
  } catch (error) {
    reply({ op: 'error', message: (error as Error).stack ?? String(error) });
    process.exitCode = 1;
  }
}
