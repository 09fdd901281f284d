/**
 * The fast allocators' segment checks: the page-disjointness contract every segment free keeps
 * (both modes), the in-line row-structure check of a page block (checks on), and the slow path
 * that names a refused segment free's error.
 *
 * @internal
 */
import { ArgumentError, DoubleFreeError, SegmentError } from '../errors.js';
import { assert } from './assert.js';
import { checkSlots } from './slot-checks.js';
import type { FreeSegment } from '../types.js';

/** The geometry the segment checks read: for a power-of-two page size the shift and mask (else −1 and 0). */
export interface SegmentGeometry {
  readonly pageSize: number;
  readonly pageShift: number;
  readonly pageMask: number;
  /** One past the last slot of the pool. */
  readonly slotEnd: number;
}

/**
 * Checks that hold whether or not checks are on: aligned starts, each segment after the previous
 * one's last page (CONTRACT.md A22); checks on, also every slot of a plain array. Returns the
 * segments' page count (the checked one-pass frees reserve that much room; counted here, this loop
 * over the segments is their only one before the free itself).
 *
 * @throws ArgumentError when `segments` is not an array.
 * @throws SegmentError for a start that is not a non-negative integer, a shared page, or an unaligned start.
 * @throws SlotRangeError (checks on) for a plain array's slot outside the pool.
 */
export function validateSegments(segments: readonly FreeSegment[], g: SegmentGeometry, checks: boolean): number {
  if (!Array.isArray(segments)) throw new ArgumentError(`freeSegments takes an array of segments, got ${String(segments)}`);
  const ps = g.pageSize;
  let prevEnd = -1;
  let pages = 0;
  let plain = false;
  for (const segment of segments) {
    const start = segment.startPos;
    const indices = segment.indices;
    const n = indices.length;
    if (n === 0) continue;
    if (!Number.isInteger(start) || start < 0) {
      throw new SegmentError(`segment start ${String(start)} is not a non-negative integer`);
    }
    // Disjointness first, as the engine checks it: the DCP seam reads "segment at 576 shares a page …".
    if (prevEnd >= 0 && Math.floor(start / ps) <= Math.floor((prevEnd - 1) / ps)) {
      throw new SegmentError(`segment at ${start} shares a page with the one ending at ${prevEnd} (page_size ${ps})`);
    }
    if (start % ps !== 0) throw new SegmentError(`segment start ${start} is not page-aligned (page_size ${ps})`);
    prevEnd = start + n;
    pages += Math.ceil(n / ps);
    if (checks && !(indices instanceof Int32Array)) plain = true;
  }
  // Checks on, a plain array's slots need not be integers: all are checked before any page is
  // touched, so a bad slot in a later segment is refused before an earlier segment's pages change.
  if (plain) for (const { indices } of segments) if (!(indices instanceof Int32Array)) checkSlots(indices, 0, indices.length, g.slotEnd);
  return pages;
}

/**
 * The in-line row-structure check of one page block, O(1): it starts on a page's first slot
 * inside the pool and its last slot is where its length puts it. Slots in the middle of a block
 * are the ledger's to check (a whole-row walk costs a read per slot where the free reads one per page).
 */
export function blockKeepsPage(first: number, last: number, length: number, g: SegmentGeometry): boolean {
  return first >= 0 && first < g.slotEnd && (first & g.pageMask) === 0 && (g.pageShift >= 0 || first % g.pageSize === 0) && last === first + length - 1;
}

/**
 * Slow path of a refused segment free: the first page block that breaks its page (SlotRangeError
 * for its slots outside the pool, else SegmentError naming its first slot off its place), else
 * DoubleFreeError naming every page that is not held or is named twice.
 */
export function refuseSegments(segments: readonly FreeSegment[], g: SegmentGeometry, isHeld: (page: number) => boolean): never {
  const ps = g.pageSize;
  for (const { indices, startPos } of segments) {
    const n = indices.length;
    for (let blockStart = 0; blockStart < n; blockStart += ps) {
      const first = indices[blockStart] as number;
      const blockEnd = Math.min(blockStart + ps, n);
      if (Number.isInteger(first) && blockKeepsPage(first, indices[blockEnd - 1] as number, blockEnd - blockStart, g)) continue;
      checkSlots(indices, blockStart, blockEnd, g.slotEnd);
      const page = Math.floor(first / ps);
      let at = blockStart;
      while (at < blockEnd && indices[at] === page * ps + (at - blockStart)) at++;
      assert(at < blockEnd, `block at row position ${startPos + blockStart} failed the structure check but every slot is in place`);
      throw new SegmentError(
        `segment at ${startPos}: row position ${startPos + at} holds slot ${indices[at]}, expected ${page * ps + (at - blockStart)} ` +
          `(offset ${at - blockStart} of page ${page}): the row breaks its page structure`,
      );
    }
  }
  const met = new Set<number>();
  const bad = new Set<number>();
  for (const { indices } of segments) {
    for (let i = 0; i < indices.length; i += ps) {
      const page = Math.floor((indices[i] as number) / ps);
      if (!isHeld(page) || met.has(page)) bad.add(page);
      met.add(page);
    }
  }
  assert(bad.size > 0, 'a segment free was refused but every page is held once');
  throw new DoubleFreeError([...bad]);
}
