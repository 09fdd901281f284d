import { describe, expect, it } from 'vitest';
import { median, medianOfSorted, ratioCentre, slicePairRatio, sortedLogs } from './robust-center.js';

describe('bench:stats,center', () => {
  it('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(medianOfSorted([1, 2, 3, 100])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });

  it('the ratio centre is a median on logs: two slow rounds in seven do not move it', () => {
    expect(ratioCentre([1, 1.01, 0.99, 1.02, 0.98, 1.9, 1.6])).toBe(1.01);
    expect(ratioCentre([2, 0.5])).toBeCloseTo(1, 12);
  });

  it('sorts logs ascending and refuses non-positive values', () => {
    expect(Array.from(sortedLogs([Math.E, 1]))).toEqual([0, 1]);
    expect(() => sortedLogs([-1])).toThrow(RangeError);
    expect(() => ratioCentre([])).toThrow(RangeError);
  });

  it("a round's ratio is the median of its slice pairs' ratios, not the ratio of the medians", () => {
    // The machine's speed moves from pair to pair; each pair's compared slice costs 5% more.
    const baseline = [100, 300, 200];
    const compared = [105, 315, 210];
    expect(slicePairRatio(compared, baseline)).toBeCloseTo(1.05, 12);
    // The pairs' ratios 1.5, 1.0, 1.1 (median 1.1), where the two medians (2000, 2000) say 1.0.
    expect(slicePairRatio([1500, 2000, 3300], [1000, 2000, 3000])).toBeCloseTo(1.1, 12);
    expect(() => slicePairRatio([1, 2], [1])).toThrow(RangeError);
    expect(() => slicePairRatio([], [])).toThrow(RangeError);
  });
});
