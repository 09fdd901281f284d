import { RangeOrderError } from './errors.js';

/** A half-open range of row positions, `[start, end)`. */
export type RowRange = readonly [start: number, end: number];

/**
 * Checks that ranges are integer, non-empty-or-empty half-open ranges inside `[0, rowLength)`,
 * ascending and disjoint (touching is fine).
 *
 * @throws RangeOrderError naming the first range that breaks the order.
 */
export function checkRanges(ranges: readonly RowRange[], rowLength: number): void {
  let prevEnd = 0;
  ranges.forEach(([start, end], i) => {
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > rowLength) {
      throw new RangeOrderError(`range ${i} [${start}, ${end}) is not a half-open range inside [0, ${rowLength})`);
    }
    if (start < prevEnd) throw new RangeOrderError(`range ${i} [${start}, ${end}) starts before the previous range ends at ${prevEnd}: ranges must be ascending and disjoint`);
    if (end > start) prevEnd = end;
  });
}

/**
 * Merges each range into the previous one when it starts exactly where the previous one ends, so
 * a split that falls mid-page frees that page once. Nothing else is merged: not overlaps (they
 * are rejected), not gaps (a gap that shares a page must still be rejected downstream). Empty
 * ranges are dropped.
 *
 * @param ranges - ascending, disjoint, half-open row ranges.
 * @param rowLength - the row's length (positions), for the bounds check.
 * @throws RangeOrderError when the ranges are not ascending and disjoint (the engine leaves this
 *   unchecked and would fall back to the crash it was written to prevent).
 */
export function coalesceRanges(ranges: readonly RowRange[], rowLength: number): RowRange[] {
  checkRanges(ranges, rowLength);
  const merged: [number, number][] = [];
  for (const [start, end] of ranges) {
    if (end === start) continue;
    const last = merged[merged.length - 1];
    if (last !== undefined && last[1] === start) last[1] = end;
    else merged.push([start, end]);
  }
  return merged;
}
