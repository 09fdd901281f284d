/**
 * The GPU group's schedule, the GPU counterpart of `harness/ab-rounds.ts`. One device, in this
 * process; every case is set up once (untimed) and warmed up. A round visits the cases in a
 * shuffled order; for each, both variants' empty references are timed, then the two variants take
 * turns, slice after slice, in a random order per slice pair, so both sample the same stretches of
 * a noisy machine; the round's ratio is the median of its slice pairs' ratios (`slicePairRatio`).
 *
 * A GPU slice is one submission of `reps` repetitions (see `GpuTimer`): the median repetition's
 * GPU time with timestamp queries, otherwise the submission's wall time over `reps`. `reps` is
 * chosen per case so a slice lasts about `sliceMs`. A CPU slice is mitata's `measure` of the CPU
 * reference for `sliceMs` of CPU time, as in the child processes of the CPU benches.
 *
 * Checks cases stop after `roundsMin` once their verdict is decided; GPU-vs-CPU cases, which have
 * no verdict to wait for, run `roundsMin` rounds.
 */
import { acquireDevice, PreparedKernels, type GpuAdapterFacts, type GpuContext } from '@kvfuzz/gpu-kernels';
import { measure } from 'mitata';
import type { StopReason } from '../harness/ab-rounds.js';
import { kBatchSamples, kBatchThresholdNs, kSamplesMax, kSamplesMin, type RunSettings } from '../harness/measure-settings.js';
import { median, slicePairRatio } from '../stats/robust-center.js';
import { seededRandom, shuffleInPlace } from '../stats/seeded-random.js';
import { judgeRatios, verdictPlan } from '../stats/verdict.js';
import { createEmptyRep } from './empty-pass.js';
import type { CaseRig, GpuCase, GpuVariantId, VariantRunner } from './gpu-cases.js';
import { GpuTimer, kRepsPerSubmitMax, type EncodeRep, type GpuTiming } from './gpu-timer.js';

/** Fewest repetitions per GPU slice: the median of fewer is one noisy repetition. */
export const kRepsPerSliceMin = 5;
/** Doublings while choosing `reps` (1 → kRepsPerSubmitMax): a bound on the calibration loop. */
const kCalibrationStepsMax = 12;
/** Warm-up calls of a variant at most (a bound on the loop; the warm-up time bounds it first). */
const kWarmupCallsMax = 100_000;

/** One round of one case: both variants' slice medians and their empty references (ns). */
export interface GpuRoundSample {
  readonly round: number;
  /** The variant that took the first slice of the round. */
  readonly first: GpuVariantId;
  readonly baselineNs: number;
  readonly comparedNs: number;
  readonly baselineEmptyNs: number;
  readonly comparedEmptyNs: number;
  /** `comparedNs / baselineNs`. */
  readonly ratio: number;
  /**
   * The lowest share of process CPU time over wall time of the round's slices. On a CPU-emulated
   * adapter the driver's worker threads count too, so it may exceed 1; it is recorded, not judged.
   */
  readonly cpuShareMin: number;
}

export interface GpuCaseRounds {
  readonly case: GpuCase;
  readonly rounds: GpuRoundSample[];
  /** Repetitions per GPU slice of this case (0 when neither variant runs on the GPU). */
  readonly repsPerSlice: number;
}

/** The device the group ran on, as the report records it. */
export interface GpuDeviceFacts extends GpuAdapterFacts {
  readonly cpuEmulated: boolean;
  /** The adapter offers 'timestamp-query'. */
  readonly timestampQuery: boolean;
  /** Dawn's timestamp quantization (off for the benches). */
  readonly timestampQuantization: boolean;
}

export interface GpuOutcome {
  readonly cases: readonly GpuCaseRounds[];
  readonly roundsRun: number;
  readonly elapsedSeconds: number;
  readonly stopReason: StopReason;
  readonly timing: GpuTiming;
  readonly device: GpuDeviceFacts;
}

export interface GpuProgress {
  readonly round: number;
  readonly caseName: string;
  readonly elapsedSeconds: number;
}

export interface GpuRunOptions {
  readonly settings: RunSettings;
  /** Seeds the schedule. */
  readonly seed: number;
  readonly margin: number;
  /** A/A calibration: each compared variant runs its baseline's code. */
  readonly aa: boolean;
  /** The device; by default `acquireDevice({ timestampQuantization: false })`, destroyed at the end. */
  readonly acquire?: () => Promise<GpuContext>;
  /** Time by wall clock even when the adapter offers timestamps (tests the fallback). */
  readonly forceWallClock?: boolean;
  readonly onProgress?: (p: GpuProgress) => void;
}

/** Process CPU time (user + system) in µs. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

interface Slice {
  readonly ns: number;
  readonly cpuShare: number;
}

class CaseRunner {
  constructor(
    private readonly timer: GpuTimer,
    private readonly settings: RunSettings,
    readonly rig: CaseRig,
    readonly reps: number,
  ) {}

  async slice(runner: VariantRunner, empty: boolean): Promise<Slice> {
    const cpuStart = cpuMicros();
    const wallStart = performance.now();
    let ns: number;
    if (runner.kind === 'gpu') {
      ns = await this.timer.timeRepsNs(empty ? runner.emptyRep : runner.rep, this.reps);
    } else {
      const fn = empty ? (): void => {} : runner.fn;
      const s = await measure(fn, { min_cpu_time: this.settings.measure.sliceMs * 1e6, batch_samples: kBatchSamples, batch_threshold: kBatchThresholdNs, min_samples: kSamplesMin, max_samples: kSamplesMax });
      ns = s.p50;
    }
    return { ns, cpuShare: (cpuMicros() - cpuStart) / 1000 / Math.max(performance.now() - wallStart, Number.MIN_VALUE) };
  }
}

async function warmUp(timer: GpuTimer, runner: VariantRunner, warmupMs: number): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < kWarmupCallsMax && (i === 0 || performance.now() - start < warmupMs); i++) {
    if (runner.kind === 'gpu') await timer.timeRepsNs(runner.rep, 1);
    else runner.fn();
  }
}

/** Repetitions that make one GPU slice last about `sliceMs`, between kRepsPerSliceMin and kRepsPerSubmitMax. */
async function chooseReps(timer: GpuTimer, rep: EncodeRep, sliceMs: number): Promise<number> {
  const sliceNs = sliceMs * 1e6;
  let reps = 1;
  for (let step = 0; step < kCalibrationStepsMax && reps < kRepsPerSubmitMax; step++) {
    const perRepNs = await timer.timeRepsNs(rep, reps);
    if (perRepNs * reps >= sliceNs) break;
    reps = Math.min(kRepsPerSubmitMax, Math.max(2 * reps, Math.ceil(sliceNs / Math.max(perRepNs, 1))));
  }
  return Math.max(kRepsPerSliceMin, reps);
}

/** Runs the GPU cases in interleaved rounds and returns every round's samples. */
export async function runGpuRounds(cases: readonly GpuCase[], options: GpuRunOptions): Promise<GpuOutcome> {
  const { settings } = options;
  const started = performance.now();
  const elapsed = (): number => (performance.now() - started) / 1000;
  const context = await (options.acquire ?? (() => acquireDevice({ timestampQuantization: false })))();
  const timer = new GpuTimer(context, options.forceWallClock === true);
  const runners: CaseRunner[] = [];
  try {
    const kernels = new PreparedKernels(context);
    const emptyRep = createEmptyRep(context.device);
    for (const c of cases) {
      const rig = c.setup(kernels, emptyRep, options.aa);
      await warmUp(timer, rig.baseline, settings.measure.warmupMs);
      await warmUp(timer, rig.compared, settings.measure.warmupMs);
      const gpuRunner = [rig.compared, rig.baseline].find((r) => r.kind === 'gpu');
      const reps = gpuRunner?.kind === 'gpu' ? await chooseReps(timer, gpuRunner.rep, settings.measure.sliceMs) : 0;
      runners.push(new CaseRunner(timer, settings, rig, reps));
    }
    const results: GpuCaseRounds[] = cases.map((c, i) => ({ case: c, rounds: [], repsPerSlice: (runners[i] as CaseRunner).reps }));
    const random = seededRandom(options.seed ^ 0x67707572);
    const { roundsMin, roundsMax, budgetSeconds } = settings.rounds;
    const plan = verdictPlan(settings.rounds, options.margin);
    // A free case goes on past roundsMin until a look decides it; the comparisons stop there.
    const done = new Set<GpuCaseRounds>();
    let roundsRun = 0;
    let stopReason: StopReason = 'decided';
    for (let round = 1; ; round++) {
      const lookedAt = round - 1;
      if (plan.looks.includes(lookedAt)) {
        for (const r of results) if (r.case.kind !== 'checks' || judgeRatios(r.rounds.map((s) => s.ratio), plan).verdict !== 'inconclusive') done.add(r);
      }
      const pending = results.map((r, i) => ({ r, i })).filter(({ r }) => round <= roundsMin || !done.has(r));
      if (pending.length === 0) break;
      if (round > roundsMax) {
        stopReason = 'rounds-max';
        break;
      }
      if (elapsed() > budgetSeconds) {
        stopReason = 'budget';
        break;
      }
      roundsRun = round;
      for (const { r, i } of shuffleInPlace(pending, random)) {
        options.onProgress?.({ round, caseName: r.case.name, elapsedSeconds: elapsed() });
        const runner = runners[i] as CaseRunner;
        const baselineFirst = random() < 0.5;
        const order = (first: boolean): readonly ['baseline' | 'compared', 'baseline' | 'compared'] => (first ? ['baseline', 'compared'] : ['compared', 'baseline']);
        const emptyNs = { baseline: 0, compared: 0 };
        const times: Record<'baseline' | 'compared', number[]> = { baseline: [], compared: [] };
        let cpuShareMin = Infinity;
        for (const v of order(baselineFirst)) emptyNs[v] = (await runner.slice(runner.rig[v], true)).ns;
        for (let s = 0; s < settings.measure.slices; s++) {
          for (const v of order(s === 0 ? baselineFirst : random() < 0.5)) {
            const slice = await runner.slice(runner.rig[v], false);
            times[v].push(slice.ns);
            cpuShareMin = Math.min(cpuShareMin, slice.cpuShare);
          }
        }
        const baselineNs = median(times.baseline);
        const comparedNs = median(times.compared);
        r.rounds.push({
          round,
          first: baselineFirst ? r.case.baseline : r.case.compared,
          baselineNs,
          comparedNs,
          baselineEmptyNs: emptyNs.baseline,
          comparedEmptyNs: emptyNs.compared,
          ratio: slicePairRatio(times.compared, times.baseline),
          cpuShareMin,
        });
      }
    }
    return {
      cases: results,
      roundsRun,
      elapsedSeconds: elapsed(),
      stopReason,
      timing: timer.timing,
      device: { ...context.adapter, cpuEmulated: context.cpuEmulated, timestampQuery: context.timestampQuery, timestampQuantization: context.timestampQuantization },
    };
  } finally {
    for (const r of runners) r.rig.destroy();
    timer.destroy();
    context.destroy();
  }
}
