import { describe, expect, it } from 'vitest';
import { noisy } from '../test-support/synthetic.js';
import { normalQuantile, shiftInterval, shiftIntervalRank } from './shift-interval.js';

describe('bench:stats,shift-interval', () => {
  it('the normal quantile matches known values', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 12);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 5);
    expect(normalQuantile(0.999)).toBeCloseTo(3.090232, 5);
    expect(() => normalQuantile(1)).toThrow(RangeError);
  });

  it('the rank matches the exact rank-sum tables at 95% (critical U + 1), or is one rank wider, never narrower', () => {
    // Critical values of U, two-sided 5%: (5, 5) 2, (8, 8) 13, (10, 10) 23, (12, 12) 37, (20, 20) 127.
    expect(shiftIntervalRank(5, 5, 0.95)).toBe(3);
    expect(shiftIntervalRank(8, 8, 0.95)).toBe(13);
    expect(shiftIntervalRank(10, 10, 0.95)).toBe(24);
    expect(shiftIntervalRank(12, 12, 0.95)).toBe(38);
    expect(shiftIntervalRank(20, 20, 0.95)).toBe(127);
    expect(shiftIntervalRank(2, 2, 0.95)).toBe(0);
  });

  it('finds a 10% change with its interval above 1.05, and keeps a 1% change below it', () => {
    const base = noisy(12, 1000, 0.01, 16);
    const slower = shiftInterval(base, noisy(12, 1100, 0.01, 17), 0.95);
    expect(slower?.ratio).toBeCloseTo(1.1, 1);
    expect(slower?.ciLow).toBeGreaterThan(1.05);
    const slight = shiftInterval(base, noisy(12, 1010, 0.01, 18), 0.95);
    expect(slight?.ciLow).toBeLessThan(1.05);
  });

  it('two runs of a two-speed case that differ only in how many rounds fell in each mode: no change', () => {
    // The medians jump from the fast mode (7 of 12 rounds fast) to the slow one (5 of 12): 1.8×.
    const fast = (n: number, seed: number): number[] => noisy(n, 60, 0.01, seed);
    const slow = (n: number, seed: number): number[] => noisy(n, 108, 0.01, seed);
    const base = [...fast(7, 1), ...slow(5, 2)];
    const cur = [...fast(5, 3), ...slow(7, 4)];
    const change = shiftInterval(base, cur, 0.95);
    expect(change?.ciLow).toBeLessThanOrEqual(1);
    expect(change?.ciHigh).toBeGreaterThanOrEqual(1);
    expect(change?.ratio).toBeLessThan(1.05);
  });

  it('null when the samples are too small; refuses empty and bad samples', () => {
    expect(shiftInterval([1, 2], [1, 2], 0.95)).toBeNull();
    expect(() => shiftInterval([], [1], 0.95)).toThrow(RangeError);
    expect(() => shiftInterval([1, -1], [1], 0.95)).toThrow(/index 1 is not positive/);
  });
});
