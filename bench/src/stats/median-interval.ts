/**
 * The distribution-free confidence interval of a median (the sign test's interval). For n values
 * the order statistics `[x(k), x(n + 1 − k)]` (1-based) hold the population median with
 * probability at least `1 − 2·P(Bin(n, ½) ≤ k − 1)`, whatever the distribution of the values, as
 * long as they are independent. A round is the unit: each ran both variants in fresh children, so
 * rounds are independent of each other.
 *
 * Why not a bootstrap: at the 5–20 rounds a run has, the percentile bootstrap of a median claims
 * more confidence than the rounds hold — at 5 rounds its 95% interval and its 99% interval are
 * both [min, max], which holds the median 94% of the time — and a verdict read off it flips from
 * run to run.
 *
 * @packageDocumentation
 */
import { ratioCentre } from './robust-center.js';
import type { RatioInterval } from './types.js';

/** Most values an interval is computed for: 2^−n stays a normal double up to n = 1022. */
export const kMedianValuesMax = 1_000;

/** An interval and whether the values could support its confidence at all. */
export interface MedianInterval extends RatioInterval {
  /** False when even `[min, max]` falls short of the confidence: then the bounds are min and max. */
  readonly supported: boolean;
}

function checkConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence ${confidence} is not in (0, 1)`);
}

/**
 * The rank `k` of the interval `[x(k), x(n + 1 − k)]` at `confidence`: the largest `k` with
 * `2·P(Bin(n, ½) ≤ k − 1) ≤ 1 − confidence`, or 0 when even `k = 1` falls short.
 *
 * @param n - values (rounds), at most {@link kMedianValuesMax}.
 * @param confidence - two-sided, in (0, 1).
 * @throws RangeError for a count or confidence out of range.
 */
export function medianIntervalRank(n: number, confidence: number): number {
  if (!Number.isInteger(n) || n < 0 || n > kMedianValuesMax) throw new RangeError(`n ${n} is not an integer in [0, ${kMedianValuesMax}]`);
  checkConfidence(confidence);
  const tail = (1 - confidence) / 2;
  let pmf = Math.pow(0.5, n);
  let cdf = 0;
  let k = 0;
  // k stays at most n / 2, so that x(k) ≤ x(n + 1 − k); the loop is bounded by it.
  for (let j = 0; 2 * (j + 1) <= n; j++) {
    cdf += pmf;
    if (cdf > tail) break;
    k = j + 1;
    pmf = (pmf * (n - j)) / (j + 1);
  }
  return k;
}

/**
 * The fewest values whose `[min, max]` reaches `confidence`: `2 · 2^−n ≤ 1 − confidence`.
 *
 * @throws RangeError for a confidence outside (0, 1).
 */
export function valuesForConfidence(confidence: number): number {
  checkConfidence(confidence);
  return Math.max(2, Math.ceil(Math.log2(2 / (1 - confidence)) - 1e-12));
}

/**
 * The median of positive values (on logs, see `ratioCentre`) and its distribution-free interval.
 *
 * @param values - positive, finite values (per-round ratios).
 * @param confidence - two-sided, in (0, 1).
 * @throws RangeError for no values, a value that is not positive and finite, or a bad confidence.
 */
export function medianInterval(values: readonly number[], confidence: number): MedianInterval {
  const ratio = ratioCentre(values);
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const k = medianIntervalRank(n, confidence);
  const lo = k === 0 ? 0 : k - 1;
  const hi = k === 0 ? n - 1 : n - k;
  return { ratio, ciLow: sorted[lo] as number, ciHigh: sorted[hi] as number, supported: k > 0 };
}
