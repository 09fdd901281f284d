import type { FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';
import { coalesceRanges, type RowRange } from './coalesce-ranges.js';
import { PageSplitError } from './errors.js';

/**
 * `Array.prototype.slice.call(source, start, end)`, without the generic path that call takes on a
 * typed array (a row), which dominated releases.
 */
function sliceToArray(source: ArrayLike<number>, startArg: number, endArg: number = source.length): number[] {
  const length = source.length;
  // Bounds as `slice` reads them: truncated, NaN as 0, negative from the end.
  const start = Math.trunc(startArg) || 0;
  const end = Math.trunc(endArg) || 0;
  const from = start < 0 ? Math.max(length + start, 0) : Math.min(start, length);
  const to = end < 0 ? Math.max(length + end, 0) : Math.min(end, length);
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(source[i] as number);
  return out;
}

/**
 * The engine's `free_kv_row_segments`: gives back one request's ascending, page-disjoint row
 * segments, split at the SWA eviction floor `swaEvictedSeqlen` (E). Parts below E (their sliding-
 * window peers are gone) go back full-side only, parts at or above E on both sides — two calls.
 * With one pool both calls reach the same allocator, so a page split between them would be given
 * back twice: when both kinds exist, E must be page-aligned.
 *
 * @param allocator - the pool the slots came from.
 * @param segments - the row segments (`startPos` page-aligned, ascending, page-disjoint).
 * @param swaEvictedSeqlen - E, in row positions.
 * @throws PageSplitError ("SWA eviction floor E splits a page") before anything is given back.
 */
export function freeKvRowSegments(allocator: PageAllocator, segments: readonly FreeSegment[], swaEvictedSeqlen: number): void {
  const dead: FreeSegment[] = [];
  const alive: FreeSegment[] = [];
  const e = swaEvictedSeqlen;
  for (const segment of segments) {
    const n = segment.indices.length;
    if (n === 0) continue;
    const start = segment.startPos;
    const end = start + n;
    if (end <= e) dead.push(segment);
    else if (start >= e) alive.push(segment);
    else {
      const split = e - start;
      dead.push({ indices: sliceToArray(segment.indices, 0, split), startPos: start });
      alive.push({ indices: sliceToArray(segment.indices, split), startPos: e });
    }
  }
  if (dead.length > 0 && alive.length > 0 && e % allocator.pageSize !== 0) {
    throw new PageSplitError(`SWA eviction floor ${e} splits a page (page_size ${allocator.pageSize})`);
  }
  if (dead.length > 0) allocator.freeSegments(dead);
  if (alive.length > 0) allocator.freeSegments(alive);
}

/**
 * Builds segments `(row[start:end], start)` for each range, in order.
 *
 * @internal
 */
export function segmentsOfRanges(row: ArrayLike<number>, ranges: readonly RowRange[]): FreeSegment[] {
  return ranges.map(([start, end]) => ({ indices: sliceToArray(row, start, end), startPos: start }));
}

/**
 * The fixed `free_kv_row`: one call per release, so a page shared by two ranges is given back
 * once. Exactly-adjacent ranges are coalesced first (a cap on the kernel grid can split a request's
 * tail mid-page, the DCP seam); ranges with a gap that share a page are still rejected by the
 * allocator's page-disjointness check.
 *
 * @param row - the request's row (slots by position).
 * @param rowLength - positions of the row that may be given back (the request's allocated length).
 * @param ranges - ascending, disjoint, half-open row ranges.
 * @throws RangeOrderError when the ranges are not ascending and disjoint.
 * @throws PageSplitError when the SWA floor splits a page between dead and alive parts.
 */
export function freeKvRow(allocator: PageAllocator, row: ArrayLike<number>, rowLength: number, swaEvictedSeqlen: number, ranges: readonly RowRange[]): void {
  freeKvRowSegments(allocator, segmentsOfRanges(row, coalesceRanges(ranges, rowLength)), swaEvictedSeqlen);
}
