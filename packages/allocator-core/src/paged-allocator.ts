import { BaseAllocator } from './base-allocator.js';
import { assert } from './internal/assert.js';
import { isListed } from './internal/page-tags.js';
import { checkSlots } from './internal/slot-checks.js';
import { sortRange } from './internal/sort-range.js';
import type { AllocatorConfig, FreeSegment } from './types.js';

/**
 * The engine's paged allocator (`PagedTokenToKVPoolAllocator`, latest variant): allocator page =
 * `kernelPageSize × dcpSize`, page 0 reserved, freed pages go to the **front** of the free list
 * (LIFO reuse) or, under `needSort`, to a staging list merged sorted when an allocation runs short.
 * A plain free releases its distinct pages in ascending order (the engine's `unique`); a segment
 * free releases its page representatives in row order; a free group releases its plain frees first,
 * then its segment representatives.
 *
 * Every release that is not staged puts its pages in the places {@link frontPlaces} gives — the
 * one place this class says where given-back pages go.
 */
export class PagedAllocator extends BaseAllocator {
  /**
   * @param config - pool size and geometry; see {@link AllocatorConfig}.
   * @throws ConfigError naming the bad value.
   */
  constructor(config: AllocatorConfig) {
    super(config);
  }

  /**
   * LIFO reuse (the engine's `_release_page_ids` prepends): `n` given-back pages take the places
   * right before the front of the free list, so they are handed out next. Returns the place of the
   * first; the caller writes the pages to `[at, at + n)` in release order — or fewer, ending at the
   * old front — and joins them to the list with `freeList.commitFront`.
   */
  private frontPlaces(n: number): number {
    return this.freeList.reserveFront(n);
  }

  protected override releasePages(pages: Int32Array, start: number, n: number): void {
    if (this.needSort) {
      this.stage(pages, start, n);
      return;
    }
    const at = this.frontPlaces(n);
    const buf = this.freeList.buf;
    for (let i = 0; i < n; i++) buf[at + i] = pages[start + i] as number;
    this.freeList.commitFront(n);
    if (this.checks === true) this.numberFront(n);
  }

  /**
   * Checks on, outside a group, without needSort and at a power-of-two page, a plain free collects
   * an entry per run of slots in a page ({@link collectPageRuns}, the loop the unchecked free runs)
   * and checks the entries in one pass; repeats stay, and {@link releasePlain} drops them after the
   * sort the engine's `unique` does anyway (they then sit side by side). The general path dedupes
   * with a stamp array first and checks in a second pass. A page not held stops the check pass
   * before anything changed; more entries than pages held (repeats far apart) take the general
   * path, which dedupes before it counts.
   *
   * The checked free thus has the unchecked free's shape, a collect then a release called from
   * the base `free`, so V8 compiles the two modes alike.
   */
  protected override collectFreeChecked(indices: ArrayLike<number>, n: number): number {
    // collectPageRuns is for power-of-two pages.
    if (this.groupOpen || this.needSort || this.pageShift < 0) return super.collectFreeChecked(indices, n);
    // Only integer arrays guarantee integer slots; a plain array is checked slot by slot first.
    if (!(indices instanceof Int32Array)) checkSlots(indices, 0, n, this.slotEnd);
    // More entries than pages held cannot all be distinct: the limit keeps scratch and the list's
    // room in bounds.
    const k = this.collectPageRuns(indices, n, this.numPages - this.freeList.count);
    if (k < 0) return super.collectFreeChecked(indices, n);
    if (!this.scratchHeld(k)) this.refuseFree(indices, n);
    return k;
  }

  /**
   * Whether every page of `scratch[0, k)` is held: the check pass, in a method apart so that
   * {@link collectFreeChecked} stays small enough for V8 to inline {@link collectPageRuns} into
   * it, as it does into the unchecked collect.
   */
  private scratchHeld(k: number): boolean {
    const { tag, scratch } = this;
    const { buf, head, count, serialBase } = this.freeList;
    const listedLo = serialBase + head;
    const listedHi = listedLo + count;
    for (let j = 0; j < k; j++) {
      const page = scratch[j] as number;
      const t = tag[page] as number;
      if (!(t >= 0) || isListed(page, t, buf, serialBase, listedLo, listedHi)) return false;
    }
    return true;
  }

  /**
   * A plain free's pages (or a group's) in ascending order (the engine's `unique`). Checks on and
   * without needSort, the distinct pages are written from the back straight to their places before
   * the front, numbered there, a repeat (side by side after the sort) skipped: no prepend and no
   * numbering pass after it.
   */
  protected override releasePlain(pages: Int32Array, n: number): void {
    sortRange(pages, 0, n);
    if (this.checks === true && !this.needSort) this.writeFrontChecked(pages, n);
    else this.release(pages, 0, n);
  }

  /**
   * Checks on, without needSort: the sorted `pages[0, n)` less repeats, written and numbered
   * before the front. A method apart so that `releasePlain` stays as small as the unchecked free
   * needs it, and V8 compiles the unchecked side alike with or without the checks.
   */
  private writeFrontChecked(pages: Int32Array, n: number): void {
    const { tag, freeList } = this;
    // At most the pages held (collectFreeChecked's limit; a group's pages are distinct), so the
    // room asked for before the front fits the list's capacity. The front's serial is at least
    // 1 + the pages held (renumber starts it above every page; a hand-out and a free move it and
    // the held count alike), so the places written there keep serials >= 1.
    const held = this.numPages - freeList.count;
    if (n > held || freeList.frontSerial() - 1 < held) assert(false, `${n} entries, ${held} pages held, front serial ${freeList.frontSerial()}`);
    // The distinct pages end at the old front: written from the last place of the room backwards.
    const front = this.frontPlaces(n) + n;
    const { buf, serialBase: base } = freeList;
    let at = front;
    let last = -1;
    for (let j = n - 1; j >= 0; j--) {
      const page = pages[j] as number;
      if (page === last) continue;
      last = page;
      at--;
      buf[at] = page;
      tag[page] = base + at;
    }
    freeList.commitFront(front - at);
  }

  /**
   * Checks on, outside a group and without needSort, a segment free checks each page block and
   * writes its page straight to its final place before the front, numbered there, in one pass:
   * the places the engine's segment-by-segment prepends give (the last segment first, each in row
   * order). The general path collects the pages into scratch, marks them queued, and numbers them
   * again as each segment is prepended. A block that breaks its page, a page not held, or one met
   * twice (its tag names a place this call already wrote) stops the pass, and the general path's
   * slow path names the error. The page count to reserve comes from the validation's loop over the
   * segments, which spares a loop of its own.
   */
  override freeSegments(segments: readonly FreeSegment[]): void {
    if (this.checks !== true || this.groupOpen || this.needSort) {
      super.freeSegments(segments);
      return;
    }
    const { pageSize: ps, pageShift, pageMask, tag, freeList } = this;
    const total = this.validateSegments(segments);
    if (total === 0) return;
    const lo = total > this.numPages - freeList.count ? -1 : this.frontPlaces(total);
    // More pages than held (some page is not held or met twice), or serials that would go below 1: the general path.
    if (lo < 0 || freeList.serialBase + lo < 1) {
      super.freeSegments(segments);
      return;
    }
    const { buf, head, count, serialBase } = freeList;
    const listedLo = serialBase + head;
    const listedHi = listedLo + count;
    const writtenLo = serialBase + lo;
    let at = lo;
    let refused = false;
    // Segments from the last: the places then grow one by one, so the call's writes are [writtenLo, serial of at).
    for (let s = segments.length - 1; s >= 0 && !refused; s--) {
      const indices = (segments[s] as FreeSegment).indices;
      const n = indices.length;
      // The block walk repeats collectSegmentPagesChecked's on purpose: as a shared method it ran
      // slower on alloc + freeSegments at large pages.
      for (let blockStart = 0; blockStart < n; blockStart += ps) {
        const first = indices[blockStart] as number;
        // `n | 0`: a typed array's length reaches V8 as a 64-bit value, and the select with it made
        // blockEnd a float, converted back and checked every block. Here n < 2^31: the segments
        // hold at most numPages pages.
        const blockEnd = blockStart + ps < n ? blockStart + ps : n | 0;
        const last = indices[blockEnd - 1] as number;
        // blockKeepsPage's rule with one branch at a power-of-two page (five, short-circuited, in
        // the function): a page-aligned first slot, and the last slot length − 1 after it. A first slot
        // outside the pool needs no test of its own: its page has no tag (the tags stop at the last
        // page; a negative slot's page, shifted unsigned, lies past it), so the tag test refuses it.
        // Slots here are int32s (an Int32Array's, or a plain array's, checked by the validation).
        const off = (first & pageMask) | (last - first - (blockEnd - blockStart) + 1);
        if (off !== 0 || (pageShift < 0 && first % ps !== 0)) {
          refused = true;
          break;
        }
        const page = pageShift >= 0 ? first >>> pageShift : Math.floor(first / ps);
        const t = tag[page] as number;
        // Free (at its place in the list) or written earlier in this call: not held.
        if (!(t >= 0) || isListed(page, t, buf, serialBase, listedLo, listedHi) || isListed(page, t, buf, serialBase, writtenLo, serialBase + at)) {
          refused = true;
          break;
        }
        buf[at] = page;
        tag[page] = serialBase + at;
        at++;
      }
    }
    // The pages written keep serials of places before the front, which read as held (the list
    // never holds them there without writing them again): nothing to undo.
    if (refused) this.refuseSegments(segments);
    freeList.commitFront(total);
  }

  protected override queueSegment(pages: Int32Array, start: number, n: number): void {
    this.queueReps(pages, start, n);
  }
}
