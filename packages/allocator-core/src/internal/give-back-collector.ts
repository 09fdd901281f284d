import type { AllocatorConfig, FreeSegment } from '../types.js';
import { AllocatorState } from './allocator-state.js';
import { isListed, kTagHeld, kTagQueued } from './page-tags.js';
import { blockKeepsPage, refuseSegments } from './segment-validation.js';
import { checkSlots, refuseFree } from './slot-checks.js';
import { kPageHeld, kPageQueued } from './snapshot.js';

/**
 * Collecting the pages a give-back names, for the fast allocators: the distinct pages of a plain
 * free (checks off by call stamps, checks on by serials, with the check of each page riding the
 * pass), the representatives of a segment free, and the slow paths that name a refused call's
 * error. What to do with the pages is `BaseAllocator`'s.
 *
 * @internal
 */
export abstract class GiveBackCollector extends AllocatorState {
  // scratch[0, k): the distinct pages of the current call.
  protected readonly scratch: Int32Array;

  constructor(config: AllocatorConfig) {
    super(config);
    this.scratch = new Int32Array(this.numPages + 1);
  }

  /** Checks off: the distinct pages of `indices` into `scratch`, first appearance first. */
  protected collectFree(indices: ArrayLike<number>, n: number): number {
    const met = this.nextStamp();
    if (this.pageShift >= 0) {
      const k = this.collectPageRuns(indices, n, this.scratch.length);
      if (k >= 0) return this.dedupeScratch(k, met);
    }
    return this.collectFreeBySlot(indices, n, this.tag, met);
  }

  /**
   * The page of each slot of `indices` into `scratch` (power-of-two pages), a slot in the page of
   * the slot before it skipped: a row gives back page after page, so at large pages most slots
   * are. Repeats further apart stay. Both modes' paged free run this loop, so V8 compiles their
   * per-slot loop alike, and with the page shift read once, not chosen per slot. Four slots are
   * tested at a time (one OR of their differences from the page start) while they stay in the page.
   *
   * @returns the entry count, or −1 when there would be more than `limit`.
   */
  protected collectPageRuns(indices: ArrayLike<number>, n: number, limit: number): number {
    const { pageShift, scratch } = this;
    if (n === 0) return 0;
    if (limit < 1) return -1;
    // A slot's page start (slot & notMask) tells its page with an AND; only a new page is shifted,
    // as V8 may not fold the page shift to a constant.
    const notMask = ~this.pageMask;
    let prevStart = (indices[0] as number) & notMask;
    scratch[0] = (indices[0] as number) >>> pageShift;
    let k = 1;
    let i = 1;
    while (i < n) {
      if (i + 4 <= n) {
        const apart = ((indices[i] as number) ^ prevStart) | ((indices[i + 1] as number) ^ prevStart) | ((indices[i + 2] as number) ^ prevStart) | ((indices[i + 3] as number) ^ prevStart);
        if ((apart & notMask) === 0) {
          i += 4;
          continue;
        }
      }
      const slot = indices[i++] as number;
      const start = slot & notMask;
      if (start === prevStart) continue;
      prevStart = start;
      if (k === limit) return -1;
      scratch[k++] = slot >>> pageShift;
    }
    return k;
  }

  /** Checks off: `scratch[0, k)` less its repeats (first appearance kept), by stamp `met`; the new count. */
  private dedupeScratch(k: number, met: number): number {
    const { tag, scratch } = this;
    let m = 0;
    for (let j = 0; j < k; j++) {
      const page = scratch[j] as number;
      if (tag[page] === met) continue;
      tag[page] = met;
      scratch[m++] = page;
    }
    return m;
  }

  /**
   * The distinct pages of `indices` into `scratch` slot by slot, for any page size and any number
   * of repeats, a page met once `stamps[page] === met` (checks off the tags, checks on an array of
   * its own, as the tags then hold serials); the count.
   */
  private collectFreeBySlot(indices: ArrayLike<number>, n: number, stamps: Int32Array, met: number): number {
    const { pageSize, pageShift, scratch } = this;
    let k = 0;
    // Any value but the first slot's page: a negative slot has a negative page, so no constant will do.
    const first = indices[0] as number;
    let prev = (pageShift >= 0 ? first >>> pageShift : Math.floor(first / pageSize)) - 1;
    for (let i = 0; i < n; i++) {
      const slot = indices[i] as number;
      const page = pageShift >= 0 ? slot >>> pageShift : Math.floor(slot / pageSize);
      if (page === prev) continue;
      prev = page;
      if (stamps[page] === met) continue;
      stamps[page] = met;
      scratch[k++] = page;
    }
    return k;
  }

  /**
   * Checks on, the general path (an open group, needSort, a page size that is not a power of two,
   * or repeats past the one-pass free's limit): {@link collectFreeBySlot}'s dedupe on a stamp array
   * of its own (the tags hold serials), then a pass over the distinct pages: each must be held — a
   * non-negative tag that does not name its place in the free list. Free, staged, queued, page 0,
   * or outside the pool (a tag that reads `undefined`) stops it; in an open group the pages checked
   * so far go back to held, and the slow path names every bad slot or page. Outside a group the
   * pass writes nothing: the release numbers the pages where it puts them.
   */
  protected collectFreeChecked(indices: ArrayLike<number>, n: number): number {
    // Only integer arrays guarantee integer slots; a plain array is checked slot by slot first.
    if (!(indices instanceof Int32Array)) checkSlots(indices, 0, n, this.slotEnd);
    const k = this.collectFreeBySlot(indices, n, this.seenPages(), this.nextSeenStamp());
    const { tag, scratch } = this;
    const { buf, head, count, serialBase } = this.freeList;
    const listedLo = serialBase + head;
    const listedHi = listedLo + count;
    const queue = this.groupOpen;
    let j = 0;
    for (; j < k; j++) {
      const page = scratch[j] as number;
      const t = tag[page] as number;
      if (!(t >= 0) || isListed(page, t, buf, serialBase, listedLo, listedHi)) break;
      if (queue) tag[page] = kTagQueued;
    }
    if (j < k) {
      if (queue) for (let i = 0; i < j; i++) tag[scratch[i] as number] = kTagHeld;
      this.refuseFree(indices, n);
    }
    return k;
  }

  /** Slow path of a refused free: every slot outside the pool, else every distinct page not held. */
  protected refuseFree(indices: ArrayLike<number>, n: number): never {
    refuseFree(indices, n, this.pageSize, this.slotEnd, (page) => this.stateOf(page) === kPageHeld);
  }

  /** A segment's page representatives (every pageSize-th slot from its start) into `scratch`. */
  protected collectReps(segment: FreeSegment): number {
    const { indices } = segment;
    const ps = this.pageSize;
    let k = 0;
    const shift = this.pageShift;
    for (let i = 0; i < indices.length; i += ps) {
      const slot = indices[i] as number;
      this.scratch[k++] = shift >= 0 ? slot >>> shift : Math.floor(slot / ps);
    }
    return k;
  }

  /**
   * Checks on, one pass over the page blocks of every segment, O(pages): each block must keep its
   * page's structure (`blockKeepsPage`), and its page must be held and met once in the call; the
   * page then goes to free (queued in an open group) and into `scratch`, in segment order. A
   * refusal puts back the pages already moved and throws the exact error.
   */
  protected collectSegmentPagesChecked(segments: readonly FreeSegment[]): void {
    const { pageSize: ps, pageShift, tag, scratch } = this;
    const { buf, head, count, serialBase } = this.freeList;
    const listedLo = serialBase + head;
    const listedHi = listedLo + count;
    let k = 0;
    let refused = false;
    for (const { indices } of segments) {
      const n = indices.length;
      for (let blockStart = 0; blockStart < n; blockStart += ps) {
        const first = indices[blockStart] as number;
        // An int32 blockEnd, as in PagedAllocator.freeSegments (a length 2^31 or more, which no pool
        // holds, reads negative there and refuses the block).
        const blockEnd = blockStart + ps < n ? blockStart + ps : n | 0;
        if (!blockKeepsPage(first, indices[blockEnd - 1] as number, blockEnd - blockStart, this.geometry)) {
          refused = true;
          break;
        }
        const page = pageShift >= 0 ? first >>> pageShift : Math.floor(first / ps);
        const t = tag[page] as number;
        if (!(t >= 0) || isListed(page, t, buf, serialBase, listedLo, listedHi)) {
          refused = true;
          break;
        }
        // Queued until released (now, or at the group's end): met again in this call, it is not held.
        tag[page] = kTagQueued;
        scratch[k++] = page;
      }
      if (refused) break;
    }
    if (refused) {
      this.settle(scratch, k, kPageQueued, kPageHeld);
      this.refuseSegments(segments);
    }
  }

  /** Slow path of a refused segment free: the row-structure error, else every page not held or met twice. */
  protected refuseSegments(segments: readonly FreeSegment[]): never {
    refuseSegments(segments, this.geometry, (page) => this.stateOf(page) === kPageHeld);
  }
}
