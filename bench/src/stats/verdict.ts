/**
 * The non-inferiority verdict of an A/B ratio (checks-on / checks-off): the checks are proven
 * cheap when the whole interval lies below `1 + margin`, proven costly when it lies above, and
 * otherwise the run says nothing (inconclusive).
 *
 * A run reads its verdicts at planned looks only (the first at `roundsMin`, then at twice as many
 * rounds, up to `roundsMax`), and the family's 95% is shared over the looks: with L looks, each
 * interval is at `1 − 0.05 / L` (Bonferroni). A case that stops at the first look that decides it
 * thus has at most a 5% chance, over all its looks, of a verdict its rounds do not support.
 *
 * @packageDocumentation
 */
import { medianInterval, medianIntervalRank, valuesForConfidence } from './median-interval.js';
import type { RatioInterval } from './types.js';

/** What the checks may cost: 3% of throughput (the margin). Never widened to make a bench pass. */
export const kMarginDefault = 0.03;
/** Two-sided confidence of a run's verdicts, shared over its looks. */
export const kConfidence = 0.95;

/** `pass`: ciHigh < 1 + margin; `fail`: ciLow > 1 + margin; otherwise (or too few rounds) `inconclusive`. */
export type Verdict = 'pass' | 'fail' | 'inconclusive';

/** How a run judges its ratios. */
export interface VerdictPlan {
  /** Allowed cost as a fraction (0.03 = 3%). */
  readonly margin: number;
  /** The rounds at which the schedule reads verdicts, ascending. */
  readonly looks: readonly number[];
  /** Two-sided confidence of each look's interval: {@link kConfidence} shared over the looks. */
  readonly confidence: number;
  /** Fewest rounds whose interval can reach that confidence; a case with fewer is inconclusive. */
  readonly roundsForVerdict: number;
}

/**
 * The looks of a schedule: `roundsMin`, then doubling while below `roundsMax`, then `roundsMax`.
 *
 * @throws RangeError unless `1 ≤ roundsMin ≤ roundsMax`.
 */
export function lookRounds(roundsMin: number, roundsMax: number): number[] {
  if (!(Number.isInteger(roundsMin) && Number.isInteger(roundsMax) && roundsMin >= 1 && roundsMin <= roundsMax)) {
    throw new RangeError(`rounds ${roundsMin}–${roundsMax} are not integers with 1 ≤ min ≤ max`);
  }
  const looks: number[] = [];
  // Bounded: the look doubles each step, so at most log2(roundsMax) + 1 of them.
  for (let r = roundsMin; r < roundsMax; r *= 2) looks.push(r);
  looks.push(roundsMax);
  return looks;
}

/**
 * The verdict plan of a schedule.
 *
 * @throws RangeError for a margin outside `[0, 1)` or rounds that {@link lookRounds} refuses.
 */
export function verdictPlan(rounds: { readonly roundsMin: number; readonly roundsMax: number }, margin: number): VerdictPlan {
  if (!(margin >= 0 && margin < 1)) throw new RangeError(`margin ${margin} is not in [0, 1)`);
  const looks = lookRounds(rounds.roundsMin, rounds.roundsMax);
  const confidence = 1 - (1 - kConfidence) / looks.length;
  return { margin, looks, confidence, roundsForVerdict: valuesForConfidence(confidence) };
}

/**
 * @param interval - the ratio and its confidence interval.
 * @param margin - allowed cost as a fraction (0.03 = 3%).
 * @param supported - whether the rounds could reach the interval's confidence at all.
 * @throws RangeError for a margin outside `[0, 1)`.
 */
export function nonInferiorityVerdict(interval: RatioInterval, margin: number, supported: boolean): Verdict {
  if (!(margin >= 0 && margin < 1)) throw new RangeError(`margin ${margin} is not in [0, 1)`);
  if (!supported) return 'inconclusive';
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
 * The median of per-round ratios, its distribution-free interval at the plan's confidence, and the
 * verdict against the plan's margin.
 *
 * @param ratios - one ratio per round (checks-on median / checks-off median).
 */
export function judgeRatios(ratios: readonly number[], plan: VerdictPlan): RatioJudgement {
  const interval = medianInterval(ratios, plan.confidence);
  return { ratio: interval.ratio, ciLow: interval.ciLow, ciHigh: interval.ciHigh, verdict: nonInferiorityVerdict(interval, plan.margin, interval.supported), rounds: ratios.length };
}

/** Whether `rounds` rounds can give a verdict under `plan` at all (see {@link medianIntervalRank}). */
export function enoughRounds(rounds: number, plan: VerdictPlan): boolean {
  return rounds >= plan.roundsForVerdict;
}
