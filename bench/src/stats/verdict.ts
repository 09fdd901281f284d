/**
 * The non-inferiority verdict of an A/B ratio (checks-on / checks-off): the checks are proven
 * cheap when the whole interval lies below `1 + margin`, proven costly when it lies above.
 *
 * @packageDocumentation
 */
import { bootstrapRatio, type BootstrapOptions, type RatioInterval } from './bootstrap.js';

/** What the checks may cost: 3% of throughput (the margin). Never widened to make a bench pass. */
export const kMarginDefault = 0.03;
/** A verdict needs this many rounds: with fewer, a percentile interval is too narrow to trust. */
export const kRoundsForVerdictMin = 5;

/** `pass`: ciHigh < 1 + margin; `fail`: ciLow > 1 + margin; otherwise (or too few rounds) `inconclusive`. */
export type Verdict = 'pass' | 'fail' | 'inconclusive';

/**
 * @param interval - the ratio and its confidence interval.
 * @param margin - allowed cost as a fraction (0.03 = 3%).
 * @param rounds - rounds behind the interval.
 * @throws RangeError for a margin outside `[0, 1)`.
 */
export function nonInferiorityVerdict(interval: RatioInterval, margin: number, rounds: number): Verdict {
  if (!(margin >= 0 && margin < 1)) throw new RangeError(`margin ${margin} is not in [0, 1)`);
  if (rounds < kRoundsForVerdictMin) return 'inconclusive';
  const limit = 1 + margin;
  if (interval.ciHigh < limit) return 'pass';
  if (interval.ciLow > limit) return 'fail';
  return 'inconclusive';
}

/** A ratio's centre, interval and verdict. */
export interface RatioJudgement extends RatioInterval {
  readonly verdict: Verdict;
  readonly rounds: number;
}

/**
 * Bootstraps per-round ratios and judges them against the margin.
 *
 * @param ratios - one ratio per round (checks-on median / checks-off median).
 * @param margin - allowed cost as a fraction.
 * @param options - resamples and seed of the bootstrap.
 */
export function judgeRatios(ratios: readonly number[], margin: number, options: BootstrapOptions = {}): RatioJudgement {
  const interval = bootstrapRatio(ratios, options);
  return { ...interval, verdict: nonInferiorityVerdict(interval, margin, ratios.length), rounds: ratios.length };
}
