/**
 * The change between two runs of the same metric, `current / baseline`: the Hodges–Lehmann shift
 * (the median of every pairwise difference of logs) with the distribution-free interval that the
 * Mann–Whitney rank-sum test gives it. Both runs' rounds enter the interval, each with its own
 * spread.
 *
 * Why ranks and not a bootstrap of the two medians: some cases land, child by child, in one of two
 * speeds. Two runs of the same code then differ only in how many rounds fell in each mode, yet each
 * run's median sits in whichever mode holds the middle round, so the medians jump by the gap
 * between the modes, and a bootstrap of medians calls such a jump a change. Pairwise differences
 * count the rounds of both modes in both runs.
 *
 * @packageDocumentation
 */
import { sortedLogs } from './robust-center.js';
import type { RatioInterval } from './types.js';

/** Most pairwise differences one interval sorts (rounds × rounds); a bound on its work. */
export const kPairsMax = 1_000_000;

/**
 * The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9).
 *
 * @internal
 * @throws RangeError for `p` outside (0, 1).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`p ${p} is not in (0, 1)`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const pLow = 0.02425;
  const poly = (coef: readonly number[], x: number): number => coef.reduce((acc, k) => acc * x + k, 0);
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(c, q) / (poly(d, q) * q + 1);
  }
  if (p > 1 - pLow) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(a, r) * q) / (poly(b, r) * r + 1);
}

/**
 * The rank `k` of the interval `[D(k), D(mn + 1 − k)]` over the `mn` sorted pairwise differences:
 * `mn/2 − z·sqrt(mn(m + n + 1)/12)`, rounded down (the rank-sum test's normal approximation, which
 * matches the exact tables from 5 rounds a side); 0 when the samples are too small for it.
 */
export function shiftIntervalRank(m: number, n: number, confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence ${confidence} is not in (0, 1)`);
  const mn = m * n;
  const z = normalQuantile(1 - (1 - confidence) / 2);
  return Math.max(0, Math.floor(mn / 2 - z * Math.sqrt((mn * (m + n + 1)) / 12)));
}

/**
 * `current / baseline` as the Hodges–Lehmann shift of logs, and its interval; null when the
 * samples are too small for the confidence.
 *
 * @param baseline - positive per-round values of the baseline run (ratios, or ns).
 * @param current - positive per-round values of the current run, in the same unit.
 * @param confidence - two-sided, in (0, 1).
 * @throws RangeError for an empty sample, a value that is not positive and finite, more than
 *   {@link kPairsMax} pairs, or a bad confidence.
 */
export function shiftInterval(baseline: readonly number[], current: readonly number[], confidence: number): RatioInterval | null {
  const base = sortedLogs(baseline);
  const cur = sortedLogs(current);
  if (base.length === 0 || cur.length === 0) throw new RangeError('shift of an empty sample');
  const pairs = base.length * cur.length;
  if (pairs > kPairsMax) throw new RangeError(`${pairs} pairwise differences exceed ${kPairsMax}`);
  const k = shiftIntervalRank(base.length, cur.length, confidence);
  if (k === 0) return null;
  const diffs = new Float64Array(pairs);
  let p = 0;
  for (const c of cur) for (const b of base) diffs[p++] = c - b;
  diffs.sort();
  const mid = pairs >> 1;
  const centre = pairs % 2 === 1 ? (diffs[mid] as number) : ((diffs[mid - 1] as number) + (diffs[mid] as number)) / 2;
  return { ratio: Math.exp(centre), ciLow: Math.exp(diffs[k - 1] as number), ciHigh: Math.exp(diffs[pairs - k] as number) };
}
