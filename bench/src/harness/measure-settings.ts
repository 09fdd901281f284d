/**
 * How long each case is measured and how many rounds a run takes, for `--quick` and full runs.
 * mitata's own defaults (642 ms per case, 4096 calls per sample) would make one round of every
 * case take minutes, so each child passes these to mitata's `measure`.
 */

/** Calls per mitata sample when a call is short: a sample of a fast op lasts at most ~8 ms. */
export const kBatchSamples = 512;
/** A call at most this long is batched (ns); longer calls are one sample each. */
export const kBatchThresholdNs = 16_000;
/** Samples per slice at most: the empty function would otherwise take hundreds of thousands. */
export const kSamplesMax = 20_000;
/** Fewest samples per slice (mitata's own minimum). */
export const kSamplesMin = 12;
/** The longest warm-up waiting for the timed function's TurboFan code (ms; run-child.ts); past it, the report warns. */
export const kWarmupMsMax = 4_000;
// mitata unrolls batches by 4; a batch must be a whole number of unrolled groups.
if (kBatchSamples % 4 !== 0) throw new Error(`kBatchSamples ${kBatchSamples} is not a multiple of mitata's unroll 4`);

/** How each case is timed in a round. */
export interface MeasureSettings {
  /**
   * Untimed calls after setup, so the op is optimized when timing starts (ms); a shorter warm-up
   * times some ops in a lower compiler tier.
   */
  readonly warmupMs: number;
  /** Timed CPU time of one slice (ms); the two variants alternate slice by slice. */
  readonly sliceMs: number;
  /** Slices per variant per case per round. */
  readonly slices: number;
}

/** How many rounds a run takes, and when it stops adding rounds. */
export interface RoundSettings {
  /** Rounds every bench runs before a verdict may stop it. */
  readonly roundsMin: number;
  /** Rounds a bench runs at most while its verdict is inconclusive. */
  readonly roundsMax: number;
  /** No new round starts once the run has taken this long (s); the budget bounds the loop. */
  readonly budgetSeconds: number;
}

/**
 * What one pair of children holds. `case`: one case, so its JIT state is its own whatever else the
 * run measures — a `--filter` run measures a case as the full run does. `file`: every case of a
 * file, in file order (fewer process starts, but a case's ratio then depends on the JIT feedback
 * the cases before it left).
 */
export type Isolation = 'case' | 'file';

/**
 * How a child loads the code it measures. `bundle`: one esbuild bundle of the bench file with the
 * packages' sources (quick to start). `modules`: the bench file bundled alone, the packages
 * imported as separate ES modules from their tsc-built `dist/`, as an installed package is (the
 * run builds them first). The two loadings compile differently, so ratios are only compared
 * within one layout (bench/README.md, "What the bundle changes").
 */
export type Layout = 'bundle' | 'modules';

export interface RunSettings {
  readonly mode: 'quick' | 'full';
  readonly isolation: Isolation;
  readonly layout: Layout;
  readonly measure: MeasureSettings;
  readonly rounds: RoundSettings;
}

/** `--quick`: about a minute and a half on a 2-core machine; verdicts may stay inconclusive. */
export const kQuickSettings: RunSettings = {
  mode: 'quick',
  isolation: 'case',
  layout: 'bundle',
  measure: { warmupMs: 80, sliceMs: 20, slices: 3 },
  rounds: { roundsMin: 5, roundsMax: 10, budgetSeconds: 100 },
};

/** The full run: 10 to 15 minutes (a round of all 42 benches takes about 70 s), not part of CI. */
export const kFullSettings: RunSettings = {
  mode: 'full',
  isolation: 'case',
  layout: 'bundle',
  measure: { warmupMs: 150, sliceMs: 50, slices: 6 },
  rounds: { roundsMin: 10, roundsMax: 40, budgetSeconds: 840 },
};

if (kQuickSettings.rounds.roundsMin > kQuickSettings.rounds.roundsMax || kFullSettings.rounds.roundsMin > kFullSettings.rounds.roundsMax) {
  throw new Error('roundsMin exceeds roundsMax');
}
