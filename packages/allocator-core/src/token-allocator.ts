import { BaseAllocator } from './base-allocator.js';
import { ConfigError } from './errors.js';
import { assert } from './internal/assert.js';
import { constantRunTest, type ConstantRunTest } from './internal/constant-run.js';
import { kTagHeld, kTagQueued, kTagReserved, kTagStaged } from './internal/page-tags.js';
import { checkSlots } from './internal/slot-checks.js';
import { kPageFree, kPageHeld, kPageQueued, kPageReserved } from './internal/snapshot.js';
import { planDecodePow2Into } from './plan-decode.js';
import type { AllocatorConfig, DecodeBatch, FreeSegment } from './types.js';

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
 *
 * Tags are stored less their page id (`tag[p] = value − p`, in both modes): consecutive pages
 * numbered for consecutive places then hold one value, so a segment free checks and numbers such
 * a run with two native calls instead of a read and a write per page (see {@link freeSegments}).
 */
export class TokenAllocator extends BaseAllocator {
  // Checks off: the next call serial (see free); every tag value is below it (clear leaves each at
  // its page id).
  private callSerial: number;
  /**
   * Checks on, a segment free: runs shorter than this go page by page (below it, the fixed cost of
   * a memcmp and a fill outweighs a read and a write per page); pages copied per block before
   * asking whether the block was one run. Tests lower both.
   */
  protected readonly runMin: number = 512;
  protected readonly runBlock: number = 1024;
  // Checks on, a segment free's long runs: [runStart[2j], runStart[2j + 1]) are run j's places.
  private runStart: Int32Array | null = null;
  private isConstantRun: ConstantRunTest | null = null;
  /**
   * Checks on, the deferred run: pages `[deferredLo, deferredHi)` hold the tag value
   * `deferredValue` (stored less the page id, one value for the run), not yet written to `tag`.
   * A segment free numbers one long run so instead of filling its tags, and a later segment free
   * that gives back pages inside it checks them by that one value instead of comparing their
   * tags (see {@link freeSegments}). Every other reader of `tag` writes the run first
   * ({@link writeDeferredRun}) or reads through {@link tagOf} / {@link stateOf}, which see it.
   */
  private deferredLo = 0;
  private deferredHi = 0;
  private deferredValue = 0;

  /**
   * @param config - pool size; the allocator page size `kernelPageSize × dcpSize` must be 1.
   * @throws ConfigError naming the bad value.
   */
  constructor(config: AllocatorConfig) {
    super(config);
    if (this.pageSize !== 1) {
      throw new ConfigError(`TokenAllocator needs page size 1, got ${this.pageSize} (kernelPageSize ${this.config.kernelPageSize} × dcpSize ${this.config.dcpSize}); use PagedAllocator`);
    }
    this.callSerial = this.numPages + 1;
  }

  protected override tagOf(page: number): number {
    return this.storedTag(page) + page;
  }

  protected override setTag(page: number, value: number): void {
    this.writeDeferredRun();
    this.tag[page] = value - page;
  }

  /** `tag[page]` as it would read with the deferred run written. */
  private storedTag(page: number): number {
    return page >= this.deferredLo && page < this.deferredHi ? this.deferredValue : (this.tag[page] as number);
  }

  /** Writes the deferred run's tags, if there is one, so `tag` alone holds every page's state. */
  private writeDeferredRun(): void {
    if (this.deferredHi === this.deferredLo) return;
    this.tag.fill(this.deferredValue, this.deferredLo, this.deferredHi);
    this.deferredLo = 0;
    this.deferredHi = 0;
  }

  override freeGroupBegin(): void {
    this.writeDeferredRun();
    super.freeGroupBegin();
  }

  override clear(): void {
    // Every tag is written again.
    this.deferredLo = 0;
    this.deferredHi = 0;
    super.clear();
  }

  protected override releasePages(pages: Int32Array, start: number, n: number): void {
    if (this.needSort) {
      this.stage(pages, start, n);
    } else {
      this.freeList.append(pages, start, n);
      if (this.checks === true) this.renumberNearLimit();
    }
  }

  /**
   * Page size 1: every request starts a page, and the only lastLoc rule, the empty row's, was
   * checked in the validation pass (`validateDecode`): the unchecked planner in both modes.
   */
  protected override planDecode(batch: DecodeBatch, out: Int32Array): void {
    planDecodePow2Into(batch, 1, this.freeList.buf, this.freeList.head, out);
  }

  /** The newer token allocator returns `null` without merging when even the staged pages would not do. */
  protected override mergeBeforeAlloc(pageCount: number): void {
    if (pageCount > this.freeList.count && pageCount <= this.freeList.count + this.stagedCount) this.mergeStaged();
  }

  /**
   * At page size 1 the engine's scheduler never calls the paged extend: `alloc_for_extend` takes
   * the batch's tokens with the token allocator's `alloc` (`mem_cache/common.py`), so an extend
   * merges staged slots by `alloc`'s rule, not the paged heuristic.
   */
  protected override mergeBeforeExtend(extendTokens: number): void {
    this.mergeBeforeAlloc(extendTokens);
  }

  /** Likewise `alloc_for_decode` takes one slot per request with `alloc` at page size 1. */
  protected override mergeBeforeDecode(batch: DecodeBatch): void {
    const n = batch.seqLens.length;
    if (n <= this.freeList.count || n > this.freeList.count + this.stagedCount) return;
    // Checks on, the lastLoc check runs before a merge changes anything (it otherwise rides planDecode).
    if (this.checks === true) this.verifyDecodeLastLocs(batch);
    this.mergeStaged();
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
    if (this.tag[page] === undefined) return kPageFree;
    const t = this.storedTag(page) + page;
    if (t === kTagStaged) return kPageFree;
    if (t === kTagQueued) return kPageQueued;
    if (t === kTagReserved) return kPageReserved;
    return t >= this.freeList.frontSerial() ? kPageFree : kPageHeld;
  }

  /**
   * Outside a group and without needSort, a free of an Int32Array writes each page straight to the
   * back of the free list, in both modes, betting that the call names every page once and (checks on) that each is
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
   * The check thus adds no instruction to the free: its compares are the dedupe's. One loop for
   * both modes, because two loops, one per mode, were compiled by V8 each its own way.
   */
  override free(indices: ArrayLike<number>): void {
    this.writeDeferredRun();
    const n = indices.length;
    const freeList = this.freeList;
    // A plain array takes the general path: its slots need not be integers, which the loop's
    // bounds test and int32 arithmetic assume (checks on, the general path checks them once).
    if (this.groupOpen || this.needSort || n === 0 || n > this.numPages - freeList.count || !(indices instanceof Int32Array)) {
      super.free(indices);
      return;
    }
    const tail = freeList.reserveBack(n);
    let stoppedAt: number;
    if (this.checks === true) {
      const front = freeList.frontSerial();
      stoppedAt = this.appendInRange(indices, n, tail, front, front + freeList.count);
      if (stoppedAt < n) this.holdAgain(tail, stoppedAt);
    } else {
      const first = this.takeCallSerials(n);
      stoppedAt = this.appendInRange(indices, n, tail, first, first);
    }
    if (stoppedAt < n) {
      super.free(indices);
      return;
    }
    freeList.commitBack(n);
    if (this.checks === true) this.renumberNearLimit();
  }

  /** Undoes a refused checked free's numbering: the `n` pages written at `buf[tail, …)` are held again. */
  private holdAgain(tail: number, n: number): void {
    const buf = this.freeList.buf;
    for (let i = 0; i < n; i++) this.setTag(buf[tail + i] as number, kTagHeld);
  }

  /**
   * `indices` to `buf[tail, …)` while each page's tag value lies in `[0, hi)`, tagging page `i`
   * with `first + i`; returns where a page outside the range stopped it (n: none).
   */
  private appendInRange(indices: Int32Array, n: number, tail: number, hi: number, first: number): number {
    const { tag } = this;
    const buf = this.freeList.buf;
    const end = tag.length;
    let i = 0;
    // The bounds test and the `| 0`s let V8 keep the loop in int32 arithmetic without overflow checks.
    for (; i < n; i++) {
      const page = indices[i] as number;
      if (!(page >>> 0 < end)) break;
      const t = ((tag[page] as number) + page) | 0;
      if (!(t >= 0 && t < hi)) break;
      tag[page] = (first + i - page) | 0;
      buf[tail + i] = page;
    }
    return i;
  }

  /**
   * Checks off: `n` call serials above every tag value written before (values start at the page
   * ids); before they pass the serial limit every value goes back to its page id and they start
   * again above the last page.
   */
  private takeCallSerials(n: number): number {
    if (this.callSerial + n > this.serialLimit) {
      this.tag.fill(0);
      this.callSerial = this.numPages + 1;
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
      // Every tag value written before the call is below met.
      if ((tag[page] as number) + page >= met) continue;
      tag[page] = met - page;
      scratch[k++] = page;
    }
    return k;
  }

  protected override collectFreeChecked(indices: ArrayLike<number>, n: number): number {
    if (!(indices instanceof Int32Array)) checkSlots(indices, 0, n, this.slotEnd);
    if (this.groupOpen || this.needSort) return this.collectFreeStamped(indices, n);
    const { tag, scratch } = this;
    const front = this.freeList.frontSerial();
    // The k-th distinct page will be appended at serial `back + k`; a tag at or past `back` was met in this call.
    const back = front + this.freeList.count;
    let k = 0;
    let i = 0;
    for (; i < n; i++) {
      const page = indices[i] as number;
      const t = (tag[page] as number) + page;
      if (t >= back) continue;
      if (!(t >= 0 && t < front)) break;
      tag[page] = back + k - page;
      scratch[k++] = page;
    }
    if (i < n) {
      this.settle(scratch, k, kPageFree, kPageHeld);
      this.refuseFree(indices, n);
    }
    return k;
  }

  /**
   * Checks on, outside a group and without needSort, a segment free writes every page straight to
   * the back of the free list, numbered for its place there, and checks it held, a run at a time
   * where it can:
   * - The copy to the list notes the long runs of consecutive page ids (at least {@link runMin}
   *   pages; across segments too), at an XOR and an OR a page ({@link copyNotingRuns}).
   * - A long run whose pages hold one tag value (stored less the page id, as every tag here) was
   *   numbered for consecutive places, so it is held exactly when its first and last serials lie
   *   below the front: one memcmp of the tags and one `fill` number it
   *   ({@link numberRunsChecked}).
   * - Every other page is read and written one at a time, as the plain free does.
   *
   * A page named twice is met the second time with a serial at or past the back (a run's memcmp
   * sees the one word it changed), so the refusal is exact; on refusal every page goes back, and
   * the general path names the bad ones.
   *
   * - One long run a call is not filled but deferred ({@link deferredLo}): a later segment free
   *   of pages inside it checks them by its one value, with no compare of their tags, and fills
   *   only the rest of it. A row given back again and again (the radix cache's pattern) then
   *   costs its run a check and no tag traffic.
   *
   * The page-by-page loop alone reads and writes a tag a page where the unchecked free only
   * copies; runs bring the checked free close to the unchecked copy on long rows.
   */
  override freeSegments(segments: readonly FreeSegment[]): void {
    if (this.groupOpen || this.needSort) {
      this.writeDeferredRun();
      super.freeSegments(segments);
      return;
    }
    this.validateSegments(segments);
    if (this.checks !== true) {
      // The same single copy without the checks: each segment's slots are its pages.
      for (const { indices } of segments) this.freeList.append(indices, 0, indices.length);
      return;
    }
    // Its own loop, not validateSegments' count: taking that count changed how V8 compiled this path.
    let total = 0;
    for (const { indices } of segments) total += indices.length;
    // More slots than held pages: some page is not held or is named twice; the general path says which.
    if (total > this.numPages - this.freeList.count) {
      this.writeDeferredRun();
      super.freeSegments(segments);
      return;
    }
    const tail = this.freeList.reserveBack(total);
    const runCount = this.copyNotingRuns(segments, tail);
    const refusedAt = this.numberRunsChecked(tail, total, runCount);
    if (refusedAt < total) {
      this.writeDeferredRun();
      this.holdAgain(tail, refusedAt);
      this.refuseSegments(segments);
    }
    this.freeList.commitBack(total);
    this.renumberNearLimit();
  }

  /**
   * Copies every segment's pages to `buf[tail, …)` and notes the runs of at least {@link runMin}
   * consecutive page ids as `[runStart[2j], runStart[2j + 1])` (places from `tail`); returns how
   * many. Blocks of {@link runBlock} pages are copied with `(page − i) ^ d` OR-ed into one word
   * (`d` = the block's first page less its index), zero when the block is one run; only a block
   * that is not is read again, page by page. Noting each break in the copy loop itself ran slower,
   * and so did the unhoisted form `page ^ (first + i − b0)`.
   */
  private copyNotingRuns(segments: readonly FreeSegment[], tail: number): number {
    const buf = this.freeList.buf;
    const { runMin, runBlock } = this;
    const runs = (this.runStart ??= new Int32Array(2 * this.numPages + 2));
    let r = 0;
    // The current run: places [start, here) hold consecutive pages, the last runEnd − 1.
    let start = 0;
    let runEnd = -1;
    let k = 0;
    for (const { indices } of segments) {
      const n = indices.length;
      for (let b0 = 0; b0 < n; b0 += runBlock) {
        const b1 = Math.min(n, b0 + runBlock);
        const first = indices[b0] as number;
        const at = tail + k;
        // In a run, page − i is first − b0 all along the block.
        const d = first - b0;
        let x = 0;
        for (let i = b0; i < b1; i++) {
          const page = indices[i] as number;
          x |= (page - i) ^ d;
          buf[at + i] = page;
        }
        // Where a run starts or breaks, page by page: in a block of one run only its first page can.
        const scanTo = x === 0 ? b0 + 1 : b1;
        for (let i = b0; i < scanTo; i++) {
          const page = indices[i] as number;
          if (page !== runEnd) {
            const place = k + i;
            if (place - start >= runMin) {
              runs[r++] = start;
              runs[r++] = place;
            }
            start = place;
          }
          runEnd = page + 1;
        }
        if (x === 0) runEnd = first + b1 - b0;
      }
      k += n;
    }
    if (k - start >= runMin) {
      runs[r++] = start;
      runs[r++] = k;
    }
    return r >> 1;
  }

  /**
   * Checks and numbers the `total` pages copied to `buf[tail, …)`: the noted runs by value (see
   * {@link freeSegments}), the pages between them one by one. Returns the place of the first page
   * refused (total: none).
   */
  private numberRunsChecked(tail: number, total: number, runCount: number): number {
    const { tag } = this;
    const buf = this.freeList.buf;
    const runs = this.runStart as Int32Array;
    const isConstant = (this.isConstantRun ??= constantRunTest(tag));
    const front = this.freeList.frontSerial();
    const back = front + this.freeList.count;
    let done = 0;
    for (let j = 0; j <= runCount; j++) {
      const runFrom = j < runCount ? (runs[2 * j] as number) : total;
      const runTo = j < runCount ? (runs[2 * j + 1] as number) : total;
      const stoppedAt = this.numberPagesChecked(tail, done, runFrom, front, back);
      if (stoppedAt < runFrom) return stoppedAt;
      done = runTo;
      if (runFrom === runTo) continue;
      const first = buf[tail + runFrom] as number;
      const last = first + runTo - runFrom - 1;
      // The run's new tag value: serial back + runFrom at its first page.
      const numbered = back + runFrom - first;
      if (this.numberRunDeferred(first, last, numbered, front)) continue;
      const value = tag[first] as number;
      if (first >= 0 && last < tag.length && isConstant(first, last + 1) && value + first >= 0 && value + last < front) {
        if (this.deferredHi === this.deferredLo) this.deferRun(first, last + 1, numbered);
        else tag.fill(numbered, first, last + 1);
        continue;
      }
      // Not numbered as one run (or not held): page by page, which finds the page to refuse.
      const at = this.numberPagesChecked(tail, runFrom, runTo, front, back);
      if (at < runTo) return at;
    }
    return total;
  }

  /**
   * The run of pages `[first, last]` against the deferred run: inside it, the run holds the
   * deferred value, so it is held exactly when that value's serials of `first` and `last` lie below
   * the front; then the rest of the deferred run is written and the run becomes the deferred one,
   * numbered `value` (true). Crossing it, the deferred run is written, and the caller compares the
   * tags (false, as when there is none or it lies apart).
   */
  private numberRunDeferred(first: number, last: number, value: number, front: number): boolean {
    const lo = this.deferredLo;
    const hi = this.deferredHi;
    if (lo === hi || last < lo || first >= hi) return false;
    const held = this.deferredValue;
    if (first < lo || last >= hi || !(held + first >= 0 && held + last < front)) {
      this.writeDeferredRun();
      return false;
    }
    this.tag.fill(held, lo, first);
    this.tag.fill(held, last + 1, hi);
    this.deferRun(first, last + 1, value);
    return true;
  }

  private deferRun(lo: number, hi: number, value: number): void {
    this.deferredLo = lo;
    this.deferredHi = hi;
    this.deferredValue = value;
  }

  /** Places `[from, to)` of `buf[tail, …)` one page at a time; returns where a page not held stopped it (to: none). */
  private numberPagesChecked(tail: number, from: number, to: number, front: number, back: number): number {
    const { tag } = this;
    const buf = this.freeList.buf;
    // A page inside the deferred run: the run is written first (once).
    const deferredLo = this.deferredLo;
    let deferredSpan = this.deferredHi - deferredLo;
    for (let i = from; i < to; i++) {
      const page = buf[tail + i] as number;
      if ((page - deferredLo) >>> 0 < deferredSpan) {
        this.writeDeferredRun();
        deferredSpan = 0;
      }
      const t = (tag[page] as number) + page;
      if (!(t >= 0 && t < front)) return i;
      tag[page] = back + i - page;
    }
    return to;
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
      for (let i = 0; i < n; i++) {
        const page = indices[i] as number;
        const t = (tag[page] as number) + page;
        if (!(t >= 0 && t < front)) {
          refused = true;
          break;
        }
        tag[page] = (fixed === 0 ? back + k : fixed) - page;
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
    const back = this.freeList.frontSerial() + this.freeList.count;
    for (let i = 0; i < n; i++) {
      const page = pages[i] as number;
      if (this.stateOf(page) !== from) assert(false, `page ${page} in state ${this.stateOf(page)}, expected ${from}`);
      this.setTag(page, to === kPageHeld ? kTagHeld : to === kPageQueued ? kTagQueued : this.needSort ? kTagStaged : back + i);
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
      const t = (tag[page] as number) + page;
      if (!(t >= 0 && t < front)) break;
      seen[page] = stamp;
      tag[page] = fixed - page;
      scratch[k++] = page;
    }
    if (i < n) {
      this.settle(scratch, k, this.groupOpen ? kPageQueued : kPageFree, kPageHeld);
      this.refuseFree(indices, n);
    }
    return k;
  }
}
