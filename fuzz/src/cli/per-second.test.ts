import { describe, expect, it } from 'vitest';
import { perSecond } from './per-second.js';

describe('perSecond', () => {
  it('is whole from 100 a second up', () => {
    expect(perSecond(178_512_345, 1_000_000)).toBe(178_512);
    expect(perSecond(1000, 10_000)).toBe(100);
  });

  it('keeps three significant digits below 100 a second, so a slow target never reads 0', () => {
    expect(perSecond(3, 10_000)).toBe(0.3);
    expect(perSecond(2, 3000)).toBe(0.667);
    expect(perSecond(995, 10_000)).toBe(99.5);
    expect(perSecond(0, 10_000)).toBe(0);
  });

  it('does not divide by a zero elapsed time', () => {
    expect(perSecond(5, 0)).toBe(5000);
  });
});
