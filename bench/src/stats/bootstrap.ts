/**
 * Percentile-bootstrap confidence intervals over rounds. A round is the resampling unit: each
 * round ran both variants in fresh child processes, back to back, so its ratio already cancels
 * the slow drift of a shared machine, and rounds are independent of each other.
 *
 * @packageDocumentation
 */
import { seededRandom } from './seeded-random.js';
import { medianOfSorted, sortedLogs } from './robust-center.js';

/** Resamples per interval: enough that the 2.5% and 97.5% quantiles move by well under 0.1%. */
export const kResamplesDefault = 10_000;
/** Fewer than this many resamples makes the percentile interval itself noisy. */
export const kResamplesMin = 1_000;
/** A bound on the work of one interval (resamples × rounds stays small). */
export const kResamplesMax = 1_000_000;
/** Two-sided confidence of every interval the benches report. */
export const kConfidence = 0.95;
/** The fixed seed of the resampling: the same samples give the same interval, run after run. */
export const kBootstrapSeedDefault = 0x6b76_6675;

/** A centre and its two-sided interval, all as ratios (unitless). */
export interface RatioInterval {
  readonly ratio: number;
  readonly ciLow: number;
  readonly ciHigh: number;
}

/** How a bootstrap is drawn. */
export interface BootstrapOptions {
  /** @defaultValue kResamplesDefault */
  readonly resamples?: number;
  /** @defaultValue kBootstrapSeedDefault */
  readonly seed?: number;
  /** @defaultValue kConfidence */
  readonly confidence?: number;
}

function resolve(options: BootstrapOptions): { resamples: number; seed: number; confidence: number } {
  const resamples = options.resamples ?? kResamplesDefault;
  const seed = options.seed ?? kBootstrapSeedDefault;
  const confidence = options.confidence ?? kConfidence;
  if (!Number.isInteger(resamples) || resamples < kResamplesMin || resamples > kResamplesMax) {
    throw new RangeError(`resamples ${resamples} is not an integer in [${kResamplesMin}, ${kResamplesMax}]`);
  }
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence ${confidence} is not in (0, 1)`);
  return { resamples, seed, confidence };
}

/** The `q` quantile of ascending values, linearly interpolated (type 7). */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantile of no values');
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return (sorted[lo] as number) + (h - lo) * ((sorted[hi] as number) - (sorted[lo] as number));
}

/** One resample's median of logs: `logs` drawn `logs.length` times with replacement. */
function resampleCentre(logs: Float64Array, scratch: Float64Array, random: () => number): number {
  const n = logs.length;
  for (let i = 0; i < n; i++) scratch[i] = logs[Math.floor(random() * n)] as number;
  scratch.sort();
  return medianOfSorted(scratch);
}

/**
 * The median of per-round ratios and its percentile-bootstrap interval, resampling rounds.
 *
 * @param ratios - one positive ratio per round (e.g. checks-on median / checks-off median).
 * @throws RangeError for no ratios, a ratio that is not positive and finite, or bad options.
 */
export function bootstrapRatio(ratios: readonly number[], options: BootstrapOptions = {}): RatioInterval {
  const { resamples, seed, confidence } = resolve(options);
  const logs = sortedLogs(ratios);
  if (logs.length === 0) throw new RangeError('bootstrap of no rounds');
  const random = seededRandom(seed);
  const scratch = new Float64Array(logs.length);
  const centres = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) centres[b] = resampleCentre(logs, scratch, random);
  centres.sort();
  const alpha = (1 - confidence) / 2;
  return {
    ratio: Math.exp(medianOfSorted(logs)),
    ciLow: Math.exp(quantileOfSorted(centres, alpha)),
    ciHigh: Math.exp(quantileOfSorted(centres, 1 - alpha)),
  };
}

/**
 * The ratio of two independent samples' medians, `current / baseline`, with a
 * percentile-bootstrap interval that resamples each sample's rounds on its own.
 *
 * @param baseline - positive per-round values of the baseline run (ratios, or times in ns).
 * @param current - positive per-round values of the current run, in the same unit.
 * @throws RangeError for an empty sample, a value that is not positive and finite, or bad options.
 */
export function bootstrapRatioOfCentres(baseline: readonly number[], current: readonly number[], options: BootstrapOptions = {}): RatioInterval {
  const { resamples, seed, confidence } = resolve(options);
  const baseLogs = sortedLogs(baseline);
  const curLogs = sortedLogs(current);
  if (baseLogs.length === 0 || curLogs.length === 0) throw new RangeError('bootstrap of no rounds');
  const random = seededRandom(seed);
  const baseScratch = new Float64Array(baseLogs.length);
  const curScratch = new Float64Array(curLogs.length);
  const diffs = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) diffs[b] = resampleCentre(curLogs, curScratch, random) - resampleCentre(baseLogs, baseScratch, random);
  diffs.sort();
  const alpha = (1 - confidence) / 2;
  return {
    ratio: Math.exp(medianOfSorted(curLogs) - medianOfSorted(baseLogs)),
    ciLow: Math.exp(quantileOfSorted(diffs, alpha)),
    ciHigh: Math.exp(quantileOfSorted(diffs, 1 - alpha)),
  };
}
