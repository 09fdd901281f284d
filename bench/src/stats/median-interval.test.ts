import { describe, expect, it } from 'vitest';
import { noisy } from '../test-support/synthetic.js';
import { medianInterval, medianIntervalRank, valuesForConfidence } from './median-interval.js';
import { seededRandom } from './seeded-random.js';

/** Exact coverage of `[x(k), x(n + 1 − k)]`: 1 − 2·P(Bin(n, ½) ≤ k − 1). */
function coverage(n: number, k: number): number {
  let pmf = Math.pow(0.5, n);
  let cdf = 0;
  for (let j = 0; j < k; j++) {
    cdf += pmf;
    pmf = (pmf * (n - j)) / (j + 1);
  }
  return 1 - 2 * cdf;
}

describe('bench:stats,median-interval', () => {
  it('the rank is the largest whose exact coverage reaches the confidence: k covers, k + 1 does not', () => {
    for (const confidence of [0.95, 0.975, 1 - 0.05 / 3]) {
      for (let n = 2; n <= 60; n++) {
        const k = medianIntervalRank(n, confidence);
        if (k > 0) expect(coverage(n, k), `n ${n} k ${k}`).toBeGreaterThanOrEqual(confidence);
        if (k + 1 <= n / 2) expect(coverage(n, k + 1), `n ${n} k ${k + 1}`).toBeLessThan(confidence);
      }
    }
  });

  it('known ranks: 9 rounds at 95% drop one value a side, 10 rounds at 98.3% none, 20 rounds four', () => {
    expect(medianIntervalRank(9, 0.95)).toBe(2);
    expect(medianIntervalRank(8, 0.95)).toBe(1);
    expect(medianIntervalRank(10, 1 - 0.05 / 3)).toBe(1);
    expect(medianIntervalRank(20, 1 - 0.05 / 3)).toBe(5);
  });

  it(`needs ${valuesForConfidence(0.95)} values for 95%: N reaches it, N − 1 does not`, () => {
    for (const confidence of [0.9, 0.95, 0.975, 1 - 0.05 / 3, 0.999]) {
      const n = valuesForConfidence(confidence);
      expect(medianIntervalRank(n, confidence), `${confidence}`).toBe(1);
      expect(medianIntervalRank(n - 1, confidence), `${confidence}`).toBe(0);
    }
    expect(valuesForConfidence(0.95)).toBe(6);
  });

  it('five rounds cannot support 95%: the bounds are min and max and the interval is unsupported', () => {
    const i = medianInterval([1.0, 1.01, 0.99, 1.02, 0.98], 0.95);
    expect(i.supported).toBe(false);
    expect([i.ciLow, i.ciHigh]).toEqual([0.98, 1.02]);
    expect(i.ratio).toBe(1.0);
  });

  it('one descheduled round does not move the centre or the bounds past the next value', () => {
    const ratios = [...noisy(19, 1.0, 0.005, 15), 3.0];
    const i = medianInterval(ratios, 0.95);
    expect(i.ratio).toBeLessThan(1.01);
    expect(i.ciHigh).toBeLessThan(1.01);
  });

  it('holds the median of a two-mode distribution at least as often as it claims (simulated)', () => {
    const random = seededRandom(99);
    // Rounds land at 1.0 or at 1.4 (a case with two speeds), with ±1% noise; the true median lies in the fast mode.
    const draw = (): number => (random() < 0.6 ? 1.0 : 1.4) * (1 + 0.01 * (2 * random() - 1));
    let held = 0;
    const trials = 2_000;
    for (let t = 0; t < trials; t++) {
      const i = medianInterval(Array.from({ length: 12 }, draw), 0.95);
      // The population median of this mixture: the fast mode's quantile 0.5 / 0.6, i.e. 1 + 0.01 × (2 × 0.833 − 1).
      const trueMedian = 1 + 0.01 * (2 * (0.5 / 0.6) - 1);
      if (i.ciLow <= trueMedian && trueMedian <= i.ciHigh) held++;
    }
    expect(held / trials).toBeGreaterThanOrEqual(0.95);
  });

  it('refuses no values, bad values and a bad confidence', () => {
    expect(() => medianInterval([], 0.95)).toThrow(RangeError);
    expect(() => medianInterval([1, 0], 0.95)).toThrow(/index 1 is not positive/);
    expect(() => medianIntervalRank(5, 1)).toThrow(/confidence 1/);
    expect(() => medianIntervalRank(-1, 0.95)).toThrow(/n -1/);
  });
});
