import { describe, expect, it } from 'vitest';
import { kFullSettings } from '../harness/measure-settings.js';
import { noisy } from '../test-support/synthetic.js';
import { enoughRounds, judgeRatios, kConfidence, kMarginDefault, lookRounds, nonInferiorityVerdict, verdictPlan } from './verdict.js';

const at = (ciLow: number, ciHigh: number) => ({ ratio: (ciLow + ciHigh) / 2, ciLow, ciHigh });
const limit = 1 + kMarginDefault;
const full = verdictPlan(kFullSettings.rounds, kMarginDefault);

describe('bench:stats,verdict', () => {
  it('pass only when the upper bound is strictly below 1 + margin', () => {
    expect(nonInferiorityVerdict(at(0.99, limit - 1e-9), kMarginDefault, true)).toBe('pass');
    expect(nonInferiorityVerdict(at(0.99, limit), kMarginDefault, true)).toBe('inconclusive');
    expect(nonInferiorityVerdict(at(0.99, limit + 1e-9), kMarginDefault, true)).toBe('inconclusive');
  });

  it('fail only when the lower bound is strictly above 1 + margin', () => {
    expect(nonInferiorityVerdict(at(limit + 1e-9, 1.2), kMarginDefault, true)).toBe('fail');
    expect(nonInferiorityVerdict(at(limit, 1.2), kMarginDefault, true)).toBe('inconclusive');
    expect(nonInferiorityVerdict(at(limit - 1e-9, 1.2), kMarginDefault, true)).toBe('inconclusive');
  });

  it('a check that makes things faster passes; an unsupported interval decides nothing', () => {
    expect(nonInferiorityVerdict(at(0.8, 0.9), kMarginDefault, true)).toBe('pass');
    expect(nonInferiorityVerdict(at(0.8, 0.9), kMarginDefault, false)).toBe('inconclusive');
    expect(nonInferiorityVerdict(at(1.5, 1.6), kMarginDefault, false)).toBe('inconclusive');
  });

  it('uses the margin it is given, and refuses one outside [0, 1)', () => {
    expect(nonInferiorityVerdict(at(1.04, 1.045), 0.05, true)).toBe('pass');
    expect(nonInferiorityVerdict(at(1.04, 1.045), 0.03, true)).toBe('fail');
    expect(nonInferiorityVerdict(at(0.99, 0.999), 0, true)).toBe('pass');
    expect(() => nonInferiorityVerdict(at(1, 1), 1, true)).toThrow(RangeError);
    expect(() => nonInferiorityVerdict(at(1, 1), -0.01, true)).toThrow(RangeError);
  });

  it('looks: roundsMin, doubling, then roundsMax; each shares the family confidence', () => {
    expect(lookRounds(10, 40)).toEqual([10, 20, 40]);
    expect(lookRounds(9, 9)).toEqual([9]);
    expect(lookRounds(6, 9)).toEqual([6, 9]);
    expect(lookRounds(5, 30)).toEqual([5, 10, 20, 30]);
    expect(() => lookRounds(9, 3)).toThrow(RangeError);
    expect(full.looks).toEqual([10, 20]);
    expect(full.confidence).toBeCloseTo(1 - (1 - kConfidence) / 2, 12);
    expect(full.roundsForVerdict).toBe(7);
    expect(verdictPlan({ roundsMin: 9, roundsMax: 9 }, kMarginDefault).confidence).toBe(kConfidence);
  });

  it('at the full run first look (10 rounds), one disturbed round neither decides nor blocks a verdict', () => {
    const steady = [1.0, 1.005, 0.995, 1.01, 0.99, 1.0, 1.002, 0.998, 1.004];
    expect(judgeRatios([...steady, 1.5], full).verdict).toBe('pass');
    expect(judgeRatios([...steady, 0.5], full).verdict).toBe('pass');
    expect(judgeRatios([...steady.slice(0, 8), 1.5, 1.5], full).verdict).toBe('inconclusive');
  });

  it(`a verdict needs ${full.roundsForVerdict} rounds at the full run's looks: N decides, N − 1 never does`, () => {
    const n = full.roundsForVerdict;
    expect(enoughRounds(n, full)).toBe(true);
    expect(judgeRatios(noisy(n, 1.0, 0.005, 1), full).verdict).toBe('pass');
    expect(judgeRatios(noisy(n - 1, 1.0, 0.005, 1), full).verdict).toBe('inconclusive');
    expect(judgeRatios(noisy(n - 1, 1.5, 0.005, 1), full).verdict).toBe('inconclusive');
  });

  it('ratios of 1.00 ± 1% pass, 1.10 ± 1% fail, 1.03 ± 2% straddle the margin', () => {
    const pass = judgeRatios(noisy(20, 1.0, 0.01, 11), full);
    expect(pass.ciLow).toBeLessThanOrEqual(1);
    expect(pass.ciHigh).toBeGreaterThanOrEqual(1);
    expect(pass.verdict).toBe('pass');
    const fail = judgeRatios(noisy(20, 1.1, 0.01, 12), full);
    expect(fail.ratio).toBeCloseTo(1.1, 2);
    expect(fail.verdict).toBe('fail');
    expect(judgeRatios(noisy(20, 1.03, 0.02, 21), full).verdict).toBe('inconclusive');
  });

  it('is deterministic: no resampling, the same rounds give the same interval', () => {
    const ratios = noisy(16, 1.01, 0.03, 14);
    expect(judgeRatios(ratios, full)).toEqual(judgeRatios([...ratios].reverse(), full));
  });
});
