/**
 * The centre of a set of per-round ratios: their median (computed on logs, which gives the same
 * ratio). A round the host disturbed anyway (one variant's slices all landing in a slow stretch)
 * gives an outlier ratio, and with ten or so rounds only the median keeps such a round from
 * stretching the interval.
 *
 * @packageDocumentation
 */

/**
 * The median of ascending values: the middle one, or the mean of the middle two.
 *
 * @throws RangeError for an empty input.
 */
export function medianOfSorted(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('median of no values');
  const mid = n >> 1;
  return n % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The median of finite numbers (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  return medianOfSorted([...values].sort((a, b) => a - b));
}

/**
 * A round's ratio: the median over its slice pairs of `compared[i] / baseline[i]`. The two slices
 * of a pair ran back to back, so their ratio cancels the machine's drift across the round, which
 * the ratio of the two medians (slices of different moments) keeps.
 *
 * @throws RangeError unless both hold the same, non-zero number of slices.
 */
export function slicePairRatio(compared: readonly number[], baseline: readonly number[]): number {
  if (compared.length !== baseline.length || compared.length === 0) throw new RangeError(`slice pairs need as many slices a side: ${compared.length} and ${baseline.length}`);
  return median(compared.map((c, i) => c / (baseline[i] as number)));
}

/**
 * The centre of positive ratios: `exp(median(log r))`.
 *
 * @param ratios - positive, finite values (unitless).
 * @throws RangeError for an empty input or a value that is not positive and finite.
 */
export function ratioCentre(ratios: readonly number[]): number {
  return Math.exp(medianOfSorted(sortedLogs(ratios)));
}

/**
 * Natural logs of positive ratios, ascending, as a Float64Array.
 *
 * @throws RangeError naming a value that is not positive and finite.
 */
export function sortedLogs(ratios: readonly number[]): Float64Array {
  const logs = new Float64Array(ratios.length);
  for (let i = 0; i < ratios.length; i++) {
    const r = ratios[i] as number;
    if (!(r > 0) || !Number.isFinite(r)) throw new RangeError(`ratio ${r} at index ${i} is not positive and finite`);
    logs[i] = Math.log(r);
  }
  return logs.sort();
}
