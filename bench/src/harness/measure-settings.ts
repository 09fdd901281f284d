/**
 * How long each case is measured and how many rounds a run takes, for `--quick` and full runs.
 * mitata's own defaults (642 ms per case, 4096 calls per sample) would make one round of every
 * case take minutes, so each child passes these to mitata's `measure`.
 */
import { kMarginDefault, verdictPlan } from '../stats/verdict.js';

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

export interface RunSettings {
  readonly mode: 'quick' | 'full';
  readonly measure: MeasureSettings;
  readonly rounds: RoundSettings;
}

/**
 * `--quick` (pull-request mode): 9 rounds of every quick case, one look at 95%, about 4 minutes
 * on a 2-core machine. Nine is the fewest rounds whose interval drops a round at each end
 * (`[x(2), x(8)]`), so one disturbed round cannot decide or block a verdict; a case the rounds do
 * not decide stays inconclusive, which never fails the exit status.
 */
export const kQuickSettings: RunSettings = {
  mode: 'quick',
  measure: { warmupMs: 80, sliceMs: 20, slices: 3 },
  rounds: { roundsMin: 9, roundsMax: 9, budgetSeconds: 300 },
};

/**
 * The full run, the gate: looks at 10, 20, 40 and 80 rounds, about 30–45 minutes on a 2-core
 * machine. The first look spends half the family's 5% (97.5%: the interval `[x(2), x(9)]`, so one
 * disturbed round neither decides nor blocks a case), the later three 0.83% each (99.17%:
 * `[x(4), x(17)]` at 20 rounds, `[x(12), x(29)]` at 40, `[x(28), x(53)]` at 80). The looks past 20
 * are for the cases near the margin and the copy cycles, whose rounds spread most: with looks up to
 * 40, two runs of the same code were expected to differ on 3.8 cases, with the look at 80 on 2.5
 * (bench/HISTORY.md). The budget covers 10 rounds of every case and the later looks of the cases
 * left undecided; cases still undecided when it ends stay inconclusive.
 */
export const kFullSettings: RunSettings = {
  mode: 'full',
  measure: { warmupMs: 150, sliceMs: 50, slices: 6 },
  rounds: { roundsMin: 10, roundsMax: 80, budgetSeconds: 2700 },
};

// Each mode's first look must be able to decide: its rounds reach the look's confidence.
for (const settings of [kQuickSettings, kFullSettings]) {
  const plan = verdictPlan(settings.rounds, kMarginDefault);
  if (settings.rounds.roundsMin < plan.roundsForVerdict) throw new Error(`${settings.mode}: roundsMin ${settings.rounds.roundsMin} is below the ${plan.roundsForVerdict} rounds a verdict needs`);
}
