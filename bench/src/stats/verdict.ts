/**
 * The non-inferiority verdict of an A/B ratio (checks-on / checks-off): the checks are proven
 * cheap when the whole interval lies below `1 + margin`, proven costly when it lies above, and
 * otherwise the run says nothing (inconclusive).
 *
 * A run reads its verdicts at planned looks only (the first at `roundsMin`, then at twice as many
 * rounds, up to `roundsMax`), and the family's 5% error is spent over the looks (Bonferroni): the
 * first look spends half of it, the later looks share the other half equally. A case that stops at
 * the first look that decides it thus has at most a 5% chance, over all its looks, of a verdict
 * its rounds do not support. The first look gets the larger share because most cases stop there,
 * and at 10 rounds a smaller share would leave only `[min, max]` as the interval.
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
  /** Two-sided confidence of each look's interval, in the order of `looks` (see {@link lookConfidences}). */
  readonly confidences: readonly number[];
  /** Fewest rounds whose interval can reach the first look's confidence; a case with fewer is inconclusive. */
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
 * The confidence of each of `looks` looks: {@link kConfidence}'s error, half at the first look and
 * the rest shared equally by the later ones (one look: all of it; two: half each).
 */
export function lookConfidences(looks: number): number[] {
  const alpha = 1 - kConfidence;
  if (looks === 1) return [kConfidence];
  return Array.from({ length: looks }, (_, i) => 1 - (i === 0 ? alpha / 2 : alpha / 2 / (looks - 1)));
}

/**
 * The confidence a reading at `rounds` rounds is held to: that of the first look at or after it.
 * A case read between looks (the budget ended its rounds) takes the place of the look it did not
 * reach, so the family's error stays within 5%.
 */
export function confidenceAt(plan: VerdictPlan, rounds: number): number {
  const i = plan.looks.findIndex((look) => rounds <= look);
  return plan.confidences[i === -1 ? plan.looks.length - 1 : i] as number;
}

/**
 * The verdict plan of a schedule.
 *
 * @throws RangeError for a margin outside `[0, 1)` or rounds that {@link lookRounds} refuses.
 */
export function verdictPlan(rounds: { readonly roundsMin: number; readonly roundsMax: number }, margin: number): VerdictPlan {
  if (!(margin >= 0 && margin < 1)) throw new RangeError(`margin ${margin} is not in [0, 1)`);
  const looks = lookRounds(rounds.roundsMin, rounds.roundsMax);
  const confidences = lookConfidences(looks.length);
  return { margin, looks, confidences, roundsForVerdict: valuesForConfidence(confidences[0] as number) };
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
 * The median of per-round ratios, its distribution-free interval at the confidence of the look
 * the rounds reached ({@link confidenceAt}), and the verdict against the plan's margin.
 *
 * @param ratios - one ratio per round (ab-rounds.ts: the median of its slice pairs' ratios).
 */
export function judgeRatios(ratios: readonly number[], plan: VerdictPlan): RatioJudgement {
  const interval = medianInterval(ratios, confidenceAt(plan, ratios.length));
  return { ratio: interval.ratio, ciLow: interval.ciLow, ciHigh: interval.ciHigh, verdict: nonInferiorityVerdict(interval, plan.margin, interval.supported), rounds: ratios.length };
}

/** Whether `rounds` rounds can give a verdict under `plan` at all (see {@link medianIntervalRank}). */
export function enoughRounds(rounds: number, plan: VerdictPlan): boolean {
  return rounds >= plan.roundsForVerdict;
}
