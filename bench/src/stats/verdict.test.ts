import { describe, expect, it } from 'vitest';
import { kFullSettings } from '../harness/measure-settings.js';
import { noisy } from '../test-support/synthetic.js';
import { medianIntervalRank } from './median-interval.js';
import { confidenceAt, enoughRounds, judgeRatios, kConfidence, kMarginDefault, lookConfidences, lookRounds, nonInferiorityVerdict, verdictPlan } from './verdict.js';

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
    expect(full.looks).toEqual([10, 20, 40, 80]);
    expect(full.roundsForVerdict).toBe(7);
    expect(verdictPlan({ roundsMin: 9, roundsMax: 9 }, kMarginDefault).confidences).toEqual([kConfidence]);
  });

  it('spends the family error half at the first look, the rest equally over the later ones', () => {
    const alpha = 1 - kConfidence;
    expect(lookConfidences(1)).toEqual([kConfidence]);
    expect(lookConfidences(2).map((c) => 1 - c)).toEqual([alpha / 2, alpha / 2].map((a) => expect.closeTo(a, 12)));
    const three = lookConfidences(3).map((c) => 1 - c);
    expect(three).toEqual([alpha / 2, alpha / 4, alpha / 4].map((a) => expect.closeTo(a, 12)));
    expect(three.reduce((a, b) => a + b, 0)).toBeCloseTo(alpha, 12);
    expect(full.confidences).toEqual(lookConfidences(4));
  });

  it("the full run's intervals: [x(2), x(9)] at 10 rounds, [x(4), x(17)] at 20, [x(12), x(29)] at 40, [x(28), x(53)] at 80", () => {
    expect(medianIntervalRank(10, confidenceAt(full, 10))).toBe(2);
    expect(medianIntervalRank(20, confidenceAt(full, 20))).toBe(4);
    expect(medianIntervalRank(40, confidenceAt(full, 40))).toBe(12);
    expect(medianIntervalRank(80, confidenceAt(full, 80))).toBe(28);
  });

  it('a reading between looks is held to the next look; past the last, to the last', () => {
    expect(confidenceAt(full, 7)).toBe(full.confidences[0]);
    expect(confidenceAt(full, 14)).toBe(full.confidences[1]);
    expect(confidenceAt(full, 27)).toBe(full.confidences[2]);
    expect(confidenceAt(full, 41)).toBe(full.confidences[3]);
    expect(confidenceAt(full, 81)).toBe(full.confidences[3]);
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
