import { describe, expect, it } from 'vitest';
import { kMarginDefault, kRoundsForVerdictMin, nonInferiorityVerdict } from './verdict.js';

const at = (ciLow: number, ciHigh: number) => ({ ratio: (ciLow + ciHigh) / 2, ciLow, ciHigh });
const limit = 1 + kMarginDefault;

describe('bench:stats,verdict', () => {
  it('pass only when the upper bound is strictly below 1 + margin', () => {
    expect(nonInferiorityVerdict(at(0.99, limit - 1e-9), kMarginDefault, 10)).toBe('pass');
    expect(nonInferiorityVerdict(at(0.99, limit), kMarginDefault, 10)).toBe('inconclusive');
    expect(nonInferiorityVerdict(at(0.99, limit + 1e-9), kMarginDefault, 10)).toBe('inconclusive');
  });

  it('fail only when the lower bound is strictly above 1 + margin', () => {
    expect(nonInferiorityVerdict(at(limit + 1e-9, 1.2), kMarginDefault, 10)).toBe('fail');
    expect(nonInferiorityVerdict(at(limit, 1.2), kMarginDefault, 10)).toBe('inconclusive');
    expect(nonInferiorityVerdict(at(limit - 1e-9, 1.2), kMarginDefault, 10)).toBe('inconclusive');
  });

  it('a check that makes things faster passes', () => {
    expect(nonInferiorityVerdict(at(0.8, 0.9), kMarginDefault, 10)).toBe('pass');
  });

  it(`needs ${kRoundsForVerdictMin} rounds: N passes, N − 1 is inconclusive either way`, () => {
    expect(nonInferiorityVerdict(at(0.99, 1.01), kMarginDefault, kRoundsForVerdictMin)).toBe('pass');
    expect(nonInferiorityVerdict(at(0.99, 1.01), kMarginDefault, kRoundsForVerdictMin - 1)).toBe('inconclusive');
    expect(nonInferiorityVerdict(at(1.5, 1.6), kMarginDefault, kRoundsForVerdictMin - 1)).toBe('inconclusive');
  });

  it('uses the margin it is given, and refuses one outside [0, 1)', () => {
    expect(nonInferiorityVerdict(at(1.04, 1.045), 0.05, 10)).toBe('pass');
    expect(nonInferiorityVerdict(at(1.04, 1.045), 0.03, 10)).toBe('fail');
    expect(nonInferiorityVerdict(at(0.99, 0.999), 0, 10)).toBe('pass');
    expect(() => nonInferiorityVerdict(at(1, 1), 1, 10)).toThrow(RangeError);
    expect(() => nonInferiorityVerdict(at(1, 1), -0.01, 10)).toThrow(RangeError);
  });
});
