import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { sortRange } from './internal/sort-range.js';

/** Arrays that are often sorted, or sorted but for one entry anywhere (the first pass's cases), and of every length around the insertion-sort cut (16). */
const arrays = fc
  .tuple(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 40 }), fc.nat(), fc.integer({ min: -60, max: 60 }), fc.constantFrom('sorted', 'one-off', 'any'))
  .map(([values, at, value, kind]) => {
    if (kind === 'any') return values;
    const sorted = [...values].sort((a, b) => a - b);
    if (kind === 'one-off' && sorted.length > 0) sorted[at % sorted.length] = value;
    return sorted;
  });

describe('allocator-core:sort-range', () => {
  test.prop([arrays, fc.nat(), fc.nat()])('sorts a[lo, hi) ascending and leaves the rest', (values, x, y) => {
    const lo = values.length === 0 ? 0 : x % (values.length + 1);
    const hi = lo + (values.length - lo === 0 ? 0 : y % (values.length - lo + 1));
    const a = Int32Array.from(values);
    sortRange(a, lo, hi);
    const expected = [...values.slice(0, lo), ...values.slice(lo, hi).sort((p, q) => p - q), ...values.slice(hi)];
    expect(Array.from(a)).toEqual(expected);
  });
});
