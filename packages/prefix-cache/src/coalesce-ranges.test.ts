import { describe, expect, it } from 'vitest';
import { coalesceRanges } from './coalesce-ranges.js';
import { RangeOrderError } from './errors.js';

describe('prefix-cache:coalesce-ranges', () => {
  it('merges exactly adjacent ranges: the DCP seam [(512, 576), (576, 1100)] becomes one range', () => {
    expect(coalesceRanges([[512, 576], [576, 1100]], 2048)).toEqual([[512, 1100]]);
    expect(coalesceRanges([[8, 9], [9, 24]], 32)).toEqual([[8, 24]]);
  });

  it('keeps gaps: [(8, 9), (12, 24)] stays two ranges', () => {
    expect(coalesceRanges([[8, 9], [12, 24]], 32)).toEqual([[8, 9], [12, 24]]);
  });

  it('drops empty ranges and merges across them', () => {
    expect(coalesceRanges([[4, 4], [4, 8], [8, 8], [8, 12]], 16)).toEqual([[4, 12]]);
  });

  it.each([
    [[[8, 12], [10, 16]], /starts before the previous range ends at 12/],
    [[[12, 16], [8, 10]], /starts before the previous range ends at 16/],
    [[[5, 3]], /is not a half-open range/],
    [[[-1, 3]], /is not a half-open range/],
    [[[0, 33]], /inside \[0, 32\)/],
    [[[0.5, 3]], /is not a half-open range/],
  ])('rejects %j', (ranges, message) => {
    expect(() => coalesceRanges(ranges as [number, number][], 32)).toThrow(RangeOrderError);
    expect(() => coalesceRanges(ranges as [number, number][], 32)).toThrow(message);
  });

  it('accepts the boundary: a range ending at the row length, touching ranges', () => {
    expect(coalesceRanges([[0, 16], [16, 32]], 32)).toEqual([[0, 32]]);
  });
});
