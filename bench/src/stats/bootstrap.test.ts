import { describe, expect, it } from 'vitest';
import { noisy } from '../test-support/synthetic.js';
import { bootstrapRatio, bootstrapRatioOfCentres, quantileOfSorted } from './bootstrap.js';
import { judgeRatios } from './verdict.js';

describe('bench:stats,bootstrap', () => {
  it('ratios of 1.00 ± 1% give an interval holding 1 and a pass', () => {
    const ratios = noisy(20, 1.0, 0.01, 11);
    const j = judgeRatios(ratios, 0.03);
    expect(j.ciLow).toBeLessThanOrEqual(1);
    expect(j.ciHigh).toBeGreaterThanOrEqual(1);
    expect(j.ciHigh).toBeLessThan(1.03);
    expect(j.verdict).toBe('pass');
  });

  it('ratios of 1.10 ± 1% give an interval above 1.03 and a fail', () => {
    const j = judgeRatios(noisy(20, 1.1, 0.01, 12), 0.03);
    expect(j.ratio).toBeCloseTo(1.1, 2);
    expect(j.ciLow).toBeGreaterThan(1.03);
    expect(j.verdict).toBe('fail');
  });

  it('ratios of 1.03 ± 2% straddle the margin: inconclusive', () => {
    const j = judgeRatios(noisy(20, 1.03, 0.02, 21), 0.03);
    expect(j.ciLow).toBeLessThan(1.03);
    expect(j.ciHigh).toBeGreaterThan(1.03);
    expect(j.verdict).toBe('inconclusive');
  });

  it('is deterministic with the fixed seed, and other seeds agree within 1%', () => {
    const ratios = noisy(16, 1.01, 0.03, 14);
    expect(bootstrapRatio(ratios)).toEqual(bootstrapRatio(ratios));
    expect(bootstrapRatio(ratios, { seed: 1 })).toEqual(bootstrapRatio(ratios, { seed: 1 }));
    const reference = bootstrapRatio(ratios);
    for (const seed of [1, 2, 3]) {
      const other = bootstrapRatio(ratios, { seed });
      expect(Math.abs(other.ciLow - reference.ciLow)).toBeLessThan(0.01);
      expect(Math.abs(other.ciHigh - reference.ciHigh)).toBeLessThan(0.01);
    }
  });

  it('equal ratios give a zero-width interval at that ratio', () => {
    const r = bootstrapRatio([1.05, 1.05, 1.05, 1.05, 1.05]);
    expect(r.ratio).toBeCloseTo(1.05, 12);
    expect(r.ciLow).toBeCloseTo(1.05, 12);
    expect(r.ciHigh).toBeCloseTo(1.05, 12);
  });

  it('one descheduled round does not move the centre', () => {
    const ratios = [...noisy(19, 1.0, 0.005, 15), 3.0];
    expect(bootstrapRatio(ratios).ratio).toBeLessThan(1.01);
  });

  it('the two-sample ratio finds a 10% change and its interval excludes 1.05; a 1% change keeps 1.05 inside or below', () => {
    const base = noisy(12, 1000, 0.01, 16);
    const slower = bootstrapRatioOfCentres(base, noisy(12, 1100, 0.01, 17));
    expect(slower.ratio).toBeCloseTo(1.1, 1);
    expect(slower.ciLow).toBeGreaterThan(1.05);
    const slight = bootstrapRatioOfCentres(base, noisy(12, 1010, 0.01, 18));
    expect(slight.ciLow).toBeLessThan(1.05);
  });

  it('refuses empty samples, non-positive ratios and bad options', () => {
    expect(() => bootstrapRatio([])).toThrow(RangeError);
    expect(() => bootstrapRatio([1, 0])).toThrow(/index 1 is not positive/);
    expect(() => bootstrapRatio([1, Number.NaN])).toThrow(RangeError);
    expect(() => bootstrapRatio([1], { resamples: 10 })).toThrow(/resamples 10/);
    expect(() => bootstrapRatio([1], { confidence: 1 })).toThrow(/confidence 1/);
    expect(() => bootstrapRatioOfCentres([], [1])).toThrow(RangeError);
  });

  it('quantiles interpolate linearly between order statistics', () => {
    const sorted = [1, 2, 3, 4, 5];
    expect(quantileOfSorted(sorted, 0)).toBe(1);
    expect(quantileOfSorted(sorted, 1)).toBe(5);
    expect(quantileOfSorted(sorted, 0.5)).toBe(3);
    expect(quantileOfSorted(sorted, 0.125)).toBe(1.5);
  });
});
