import { BaseAllocator, kPageFree, kPageHeld, kPageQueued, kPageReserved, kTagHeld, kTagQueued, kTagReserved, kTagStaged } from './base-allocator.js';
import { ConfigError } from './errors.js';
import { assert } from './internal/assert.js';
import type { AllocatorConfig, FreeSegment } from './types.js';

/**
 * The engine's token allocator (page size 1): slot 0 reserved, freed slots go to the **back** of
 * the free list (FIFO reuse) or, under `needSort`, to a staging list merged sorted when an
 * allocation runs short. `allocExtend` and `allocDecode` take slots from the front in batch order.
 * Segment frees are plain frees, as in the engine's base allocator.
 *
 * In-line checks (checks on) by serial, as in {@link BaseAllocator}; FIFO reuse never puts a page
 * below the list's front, so here a page is held exactly when its serial lies below the front
 * serial, with no read of the list, and a free reads and writes one word per page, the word its
 * dedupe touches anyway.
 */
export class TokenAllocator extends BaseAllocator {
  // Checks off: the next call serial (see free); every tag is below it.
  private callSerial = 1;

  /**
   * @param config - pool size; the allocator page size `kernelPageSize × dcpSize` must be 1.
   * @throws ConfigError naming the bad value.
   */
  constructor(config: AllocatorConfig) {
    super(config);
    if (this.pageSize !== 1) {
      throw new ConfigError(`TokenAllocator needs page size 1, got ${this.pageSize} (kernelPageSize ${this.config.kernelPageSize} × dcpSize ${this.config.dcpSize}); use PagedAllocator`);
    }
  }

  protected override releasePages(pages: Int32Array, start: number, n: number): void {
    if (this.needSort) {
      this.stage(pages, start, n);
    } else {
      this.freeList.append(pages, start, n);
      if (this.checks) this.renumberNearLimit();
    }
  }

  /** The newer token allocator returns `null` without merging when even the staged pages would not do. */
  protected override mergeBeforeAlloc(pageCount: number): void {
    if (pageCount > this.freeList.count && pageCount <= this.freeList.count + this.stagedCount) this.mergeStaged();
  }

  protected override queueSegment(pages: Int32Array, start: number, n: number): void {
    this.queuePlain(pages, start, n);
  }

  // ---- checks by serial -----------------------------------------------------------------------

  /**
   * By serial against the front alone: FIFO reuse never puts a page back below the front, so a
   * tag at or past it is a listed page, or one a checked call has numbered for the back and not yet
   * appended (what a refused call's undo expects to find free).
   */
  protected override stateOf(page: number): number {
    const t = this.tag[page];
    if (t === undefined || t === kTagStaged) return kPageFree;
    if (t === kTagQueued) return kPageQueued;
    if (t === kTagReserved) return kPageReserved;
    return t >= this.freeList.frontSerial() ? kPageFree : kPageHeld;
  }

  /**
   * Outside a group and without needSort, a free writes each page straight to the back of the free
   * list, in both modes, betting that the call names every page once and (checks on) that each is
   * held: slot `i` goes to place `tail + i`. Both modes run one loop, {@link appendInRange}: it
   * accepts a page whose tag lies in `[0, hi)` and tags it `first + i`.
   * - Checks on, the range is the held serials `[0, front)` and `first` the serial of `tail`, so
   *   each page is numbered for its place (see the class comment).
   * - Checks off, the tags are call serials (never negative): each call takes `n` new ones above
   *   every tag written before, so the range `[0, first)` accepts any page not yet met in this
   *   call. That is the unchecked free's dedupe, with the check's compares in place of a stamp's.
   *
   * A page outside the range stops the loop. The pages numbered so far go back to held (checks on;
   * call serials need no undo), and the general path dedupes the call into scratch or names the bad
   * pages. More slots than held pages cannot all be distinct and held, so they go there at once.
   *
   * The check thus adds no instruction to the free: its compares are the dedupe's. Two loops, one
   * per mode, measured alloc + free of the chat mix at page 1 at 1.05–1.13 between builds, as V8
   * compiled each loop its own way; this one 0.99–1.03.
   */
  override free(indices: ArrayLike<number>): void {
    const n = indices.length;
    const freeList = this.freeList;
    // Checks on, a plain array takes the general path, whose collect checks its slots once (here
    // they were checked first and again when a bad page sent the call there).
    if (this.groupOpen || this.needSort || n === 0 || n > this.numPages - freeList.count || (this.checks && !(indices instanceof Int32Array))) {
      super.free(indices);
      return;
    }
    const tail = freeList.reserveBack(n);
    let stoppedAt: number;
    if (this.checks) {
      const front = freeList.frontSerial();
      stoppedAt = this.appendInRange(indices, n, tail, front, front + freeList.count);
      if (stoppedAt < n) for (let j = 0; j < stoppedAt; j++) this.tag[freeList.buf[tail + j] as number] = kTagHeld;
    } else {
      const first = this.takeCallSerials(n);
      stoppedAt = this.appendInRange(indices, n, tail, first, first);
    }
    if (stoppedAt < n) {
      super.free(indices);
      return;
    }
    freeList.commitBack(n);
    if (this.checks) this.renumberNearLimit();
  }

  /**
   * `indices` to `buf[tail, …)` while each page's tag lies in `[0, hi)`, tagging page `i` with
   * `first + i`; returns where a page outside the range stopped it (n: none).
   */
  private appendInRange(indices: ArrayLike<number>, n: number, tail: number, hi: number, first: number): number {
    const { tag } = this;
    const buf = this.freeList.buf;
    let i = 0;
    for (; i < n; i++) {
      const page = indices[i] as number;
      const t = tag[page] as number;
      if (!(t >= 0 && t < hi)) break;
      tag[page] = first + i;
      buf[tail + i] = page;
    }
    return i;
  }

  /**
   * Checks off: `n` call serials above every tag written before (tags start at 0); before they
   * pass the serial limit every tag goes back to 0 and they start again from 1.
   */
  private takeCallSerials(n: number): number {
    if (this.callSerial + n > this.serialLimit) {
      this.tag.fill(0);
      this.callSerial = 1;
    }
    const first = this.callSerial;
    this.callSerial += n;
    return first;
  }

  /**
   * Checks off: {@link BaseAllocator.collectFree} without its skip of a slot in the same page as
   * the one before (at page size 1 every slot is its own page, so there is nothing to skip), and
   * with a call serial for its stamp, as the direct path in {@link free} uses.
   */
  protected override collectFree(indices: ArrayLike<number>, n: number): number {
    const { pageSize, pageShift, tag, scratch } = this;
    const met = this.takeCallSerials(1);
    let k = 0;
    for (let i = 0; i < n; i++) {
      const slot = indices[i] as number;
      const page = pageShift >= 0 ? slot >>> pageShift : Math.floor(slot / pageSize);
      // Every tag written before the call is below met.
      if ((tag[page] as number) >= met) continue;
      tag[page] = met;
      scratch[k++] = page;
    }
    return k;
  }

  protected override collectFreeChecked(indices: ArrayLike<number>, n: number): number {
    if (!(indices instanceof Int32Array)) this.checkSlots(indices, 0, n);
    if (this.groupOpen || this.needSort) return this.collectFreeStamped(indices, n);
    const { tag, scratch } = this;
    const front = this.freeList.frontSerial();
    // The k-th distinct page will be appended at serial `back + k`; a tag at or past `back` was met in this call.
    const back = front + this.freeList.count;
    let k = 0;
    let i = 0;
    for (; i < n; i++) {
      const page = indices[i] as number;
      const t = tag[page] as number;
      if (t >= back) continue;
      if (!(t >= 0 && t < front)) break;
      tag[page] = back + k;
      scratch[k++] = page;
    }
    if (i < n) {
      this.settle(scratch, k, kPageFree, kPageHeld);
      this.throwFreeError(indices, n);
    }
    return k;
  }

  /**
   * Checks on, outside a group and without needSort, a segment free checks each page and writes it
   * straight to the back of the free list, numbered for its place there: one tag read and write
   * and one list write a page, where collecting into scratch and appending from it copied every
   * page twice (the unchecked free's two copies cost the same as this whole pass).
   */
  override freeSegments(segments: readonly FreeSegment[]): void {
    if (this.groupOpen || this.needSort) {
      super.freeSegments(segments);
      return;
    }
    this.validateSegments(segments);
    if (!this.checks) {
      // The same single copy without the checks: each segment's slots are its pages.
      for (const { indices } of segments) this.freeList.append(indices, 0, indices.length);
      return;
    }
    let total = 0;
    for (const { indices } of segments) total += indices.length;
    // More slots than held pages: some page is not held or is named twice; the general path says which.
    if (total > this.numPages - this.freeList.count) {
      super.freeSegments(segments);
      return;
    }
    // The loop repeats collectSegmentPagesChecked's on purpose: one loop for both, taking the tag
    // rule and the destination as parameters, measured 4–15% slower on this path.
    const { tag, freeList } = this;
    const tail = freeList.reserveBack(total);
    const buf = freeList.buf;
    const front = freeList.frontSerial();
    const back = front + freeList.count;
    let k = 0;
    let refused = false;
    for (const { indices } of segments) {
      const n = indices.length;
      if (!(indices instanceof Int32Array)) this.checkSlots(indices, 0, n);
      for (let i = 0; i < n; i++) {
        const page = indices[i] as number;
        const t = tag[page] as number;
        if (!(t >= 0 && t < front)) {
          refused = true;
          break;
        }
        tag[page] = back + k;
        buf[tail + k++] = page;
      }
      if (refused) break;
    }
    if (refused) {
      for (let i = 0; i < k; i++) tag[buf[tail + i] as number] = kTagHeld;
      this.refuseSegments(segments);
    }
    freeList.commitBack(k);
    this.renumberNearLimit();
  }

  protected override collectSegmentPagesChecked(segments: readonly FreeSegment[]): void {
    const { tag, scratch } = this;
    const front = this.freeList.frontSerial();
    const back = front + this.freeList.count;
    const fixed = this.groupOpen ? kTagQueued : this.needSort ? kTagStaged : 0;
    let k = 0;
    let refused = false;
    for (const { indices } of segments) {
      const n = indices.length;
      if (!(indices instanceof Int32Array)) this.checkSlots(indices, 0, n);
      for (let i = 0; i < n; i++) {
        const page = indices[i] as number;
        const t = tag[page] as number;
        if (!(t >= 0 && t < front)) {
          refused = true;
          break;
        }
        tag[page] = fixed === 0 ? back + k : fixed;
        scratch[k++] = page;
      }
      if (refused) break;
    }
    if (refused) {
      this.settle(scratch, k, this.groupOpen ? kPageQueued : kPageFree, kPageHeld);
      this.refuseSegments(segments);
    }
  }

  /**
   * Moves pages between states by tag: to held (undoing a refused call), or from queued to free at
   * a group's end, numbered for the place each takes at the back of the list (or staged).
   */
  protected override settle(pages: Int32Array, n: number, from: number, to: number): void {
    const tag = this.tag;
    const back = this.freeList.frontSerial() + this.freeList.count;
    for (let i = 0; i < n; i++) {
      const page = pages[i] as number;
      if (this.stateOf(page) !== from) assert(false, `page ${page} in state ${this.stateOf(page)}, expected ${from}`);
      tag[page] = to === kPageHeld ? kTagHeld : to === kPageQueued ? kTagQueued : this.needSort ? kTagStaged : back + i;
    }
  }

  /** Checked free in an open group or under needSort: pages get a fixed negative tag, so dedupe uses stamps. */
  private collectFreeStamped(indices: ArrayLike<number>, n: number): number {
    const seen = this.seenPages();
    const stamp = this.nextSeenStamp();
    const { tag, scratch } = this;
    const front = this.freeList.frontSerial();
    const fixed = this.groupOpen ? kTagQueued : kTagStaged;
    let k = 0;
    let i = 0;
    for (; i < n; i++) {
      const page = indices[i] as number;
      if (seen[page] === stamp) continue;
      const t = tag[page] as number;
      if (!(t >= 0 && t < front)) break;
      seen[page] = stamp;
      tag[page] = fixed;
      scratch[k++] = page;
    }
    if (i < n) {
      this.settle(scratch, k, this.groupOpen ? kPageQueued : kPageFree, kPageHeld);
      this.throwFreeError(indices, n);
    }
    return k;
  }
}
