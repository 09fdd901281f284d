import { FreeGroupError } from './errors.js';
import { refuseAllocSize } from './internal/argument-refusals.js';
import { assert } from './internal/assert.js';
import { validateDecode, validateExtend } from './internal/batch-validation.js';
import { planDecodeChecked } from './internal/checked-plans.js';
import { FreeGroupQueue } from './internal/free-group-queue.js';
import { GiveBackCollector } from './internal/give-back-collector.js';
import { verifyDecodeLastLocs } from './internal/lastloc-checks.js';
import { validateSegments } from './internal/segment-validation.js';
import { checkSnapshotStates, kPageFree, kPageHeld, kPageQueued, kPageReserved, makeSnapshot, snapshotOf } from './internal/snapshot.js';
import { countDecodePages, countDecodePagesPow2, planDecodeInto, planDecodePow2Into } from './plan-decode.js';
import { countExtendPages, planExtendInto } from './plan-extend.js';
import type { AllocatorConfig, DecodeBatch, ExtendBatch, FreeSegment, PageAllocator } from './types.js';

export { kPageFree, kPageHeld, kPageQueued, kPageReserved } from './internal/snapshot.js';

/**
 * What the fast token and paged allocators share: the free list, `needSort` staging, free groups,
 * snapshots and the in-line exactly-once checks. Subclasses choose the reuse order. The plain
 * `ReferenceAllocator` states the same rules one method each; a property test holds the two to
 * each other call by call.
 *
 * Invariants (checked by {@link BaseAllocator.verifyInvariants}):
 * 1. free + staged + queued + held = numPages, and no page is in two of them;
 * 2. the free list and the staged list hold no page twice and never page 0;
 * 3. with checks on, the page states agree with the lists (free or staged ⇔ kPageFree, open group ⇔ kPageQueued).
 *
 * The class is the top of three layers, one concept each: `AllocatorState` (geometry, free list,
 * staging, page states by serial — see `internal/page-tags.ts`), `GiveBackCollector` (the pages a
 * give-back names, checked on the way), and here the calls of the contract and the engine's rules
 * the two allocators differ in.
 */
export abstract class BaseAllocator extends GiveBackCollector implements PageAllocator {
  // What the open group queued; emptied at its begin and end.
  private readonly group: FreeGroupQueue;

  constructor(config: AllocatorConfig) {
    super(config);
    this.group = new FreeGroupQueue(this.numPages + 1);
    this.clear();
  }

  /** Free slots: free and staged pages times the page size. Pages queued in an open group are not yet free. */
  availableSize(): number {
    return (this.freeList.count + this.stagedCount) * this.pageSize;
  }

  /**
   * Whole pages for `needSize` slots, from the front of the free list.
   *
   * @param needSize - slots wanted; a multiple of the page size.
   * @returns the slots of each page in free-list order, or `null` when short (staged pages are merged first).
   * @throws ArgumentError when `needSize` is negative, not an integer or not a page multiple.
   */
  alloc(needSize: number): Int32Array | null {
    if (!Number.isInteger(needSize) || needSize < 0 || needSize % this.pageSize !== 0) refuseAllocSize(needSize, this.pageSize);
    const pageCount = needSize / this.pageSize;
    if (pageCount === 0) return new Int32Array(0);
    this.mergeBeforeAlloc(pageCount);
    if (pageCount > this.freeList.count) return null;
    const out = new Int32Array(needSize);
    this.fillPages(out, pageCount);
    this.freeList.take(pageCount);
    return out;
  }

  /**
   * The new slots of an extend batch, request after request (see `planExtendInto`). Handing the
   * pages out moves the list's front past them; with checks on that is their move to held too, so
   * nothing is written per page.
   *
   * @throws ArgumentError when arrays differ in length, a length is not a non-negative integer, or `seq < prefix`.
   * @throws LastLocError (checks on) when a `lastLoc` does not fit its prefix (`(lastLoc + 1) % pageSize`, −1 for an empty one).
   */
  allocExtend(batch: ExtendBatch): Int32Array | null {
    const extendTokens = this.validateExtend(batch);
    const batchSize = batch.prefixLens.length;
    if (batchSize === 0) return new Int32Array(0);
    // The lastLoc check ran in validateExtend, before a merge or a null answer can change anything.
    this.mergeBeforeExtend(extendTokens, batchSize);
    const pageCount = this.countExtendPages(batch);
    if (pageCount > this.freeList.count) return null;
    const out = new Int32Array(extendTokens);
    this.planExtend(batch, out);
    this.freeList.take(pageCount);
    return out;
  }

  /**
   * One new slot per request (see `planDecodeInto`).
   *
   * @throws ArgumentError when arrays differ in length or a length is not an integer ≥ 1.
   * @throws LastLocError (checks on) when a `lastLoc` does not fit `seq − 1` (`(lastLoc + 1) % pageSize`, −1 for an empty row).
   */
  allocDecode(batch: DecodeBatch): Int32Array | null {
    this.validateDecode(batch);
    const batchSize = batch.seqLens.length;
    if (batchSize === 0) return new Int32Array(0);
    // The empty row's lastLoc rule ran in validateDecode; as in allocExtend, the page rule rides
    // planDecode unless a merge or a null answer comes first.
    this.mergeBeforeDecode(batch);
    const pageCount = this.countDecodePages(batch);
    if (pageCount > this.freeList.count) {
      if (this.checks === true) this.verifyDecodeLastLocs(batch);
      return null;
    }
    const out = new Int32Array(batchSize);
    this.planDecode(batch, out);
    this.freeList.take(pageCount);
    return out;
  }

  /**
   * Gives back the whole page of every slot, each page once per call. Inside a free group the
   * pages are queued (copied now) and released at the group's end.
   *
   * @throws SlotRangeError (checks on) for a slot outside the pool.
   * @throws DoubleFreeError (checks on) naming every page that is not held.
   */
  free(indices: ArrayLike<number>): void {
    const n = indices.length;
    if (n === 0) return;
    const k = this.checks === true ? this.collectFreeChecked(indices, n) : this.collectFree(indices, n);
    if (this.groupOpen) this.group.queuePlain(this.scratch, 0, k);
    else this.releasePlain(this.scratch, k);
  }

  /**
   * Gives back page-disjoint row segments. Every segment is validated before anything is
   * released, so a rejected call changes nothing (the engine checks and frees one at a time).
   *
   * @throws SegmentError when a start is not page-aligned or a segment shares a page with the previous one.
   * @throws SegmentError (checks on) when a segment's slots break the row's page structure.
   * @throws DoubleFreeError (checks on) naming every page that is not held or appears twice.
   */
  freeSegments(segments: readonly FreeSegment[]): void {
    this.validateSegments(segments);
    if (this.checks === true) {
      // One pass checks and marks every segment's pages into scratch; then each segment is released in turn.
      this.collectSegmentPagesChecked(segments);
      let start = 0;
      for (const { indices } of segments) {
        const k = Math.ceil(indices.length / this.pageSize);
        this.releaseSegment(this.scratch, start, k);
        start += k;
      }
      return;
    }
    for (const segment of segments) this.releaseSegment(this.scratch, 0, this.collectReps(segment));
  }

  /** @throws FreeGroupError when a group is already open ("free groups cannot be nested"). */
  freeGroupBegin(): void {
    if (this.groupOpen) throw new FreeGroupError('free groups cannot be nested');
    this.groupOpen = true;
    this.group.begin();
  }

  /**
   * Releases the group: first its plain frees as one deduplicated free, then its segment
   * representatives as queued — the engine's order.
   *
   * @throws FreeGroupError when no group is open.
   */
  freeGroupEnd(): void {
    if (!this.groupOpen) throw new FreeGroupError('freeGroupEnd without a matching freeGroupBegin');
    this.groupOpen = false;
    const { plain, plainCount, reps, repsCount } = this.group;
    this.group.empty();
    // Each list is settled right before its release: a subclass may number pages by where they land.
    if (plainCount > 0) {
      if (this.checks === true) this.settle(plain, plainCount, kPageQueued, kPageFree);
      this.releasePlain(plain, plainCount);
    }
    if (repsCount > 0) {
      if (this.checks === true) this.settle(reps, repsCount, kPageQueued, kPageFree);
      this.release(reps, 0, repsCount);
    }
  }

  /**
   * A deep copy of the free state (free list, staged pages, page states).
   *
   * @throws FreeGroupError inside an open free group.
   */
  backupState(): unknown {
    if (this.groupOpen) throw new FreeGroupError('backupState inside an open free group');
    return makeSnapshot(this.geometry, this.freeList.toArray(), this.staged.slice(0, this.stagedCount), this.checks === true ? this.pageStates() : null);
  }

  /**
   * Returns to a snapshot of this allocator's geometry; the snapshot stays reusable.
   *
   * @throws StateError when `state` is not such a snapshot, or (checks on) when its page states
   *   disagree with its lists: states are derived from the lists alone, so such a snapshot is
   *   refused here rather than met at a later free.
   * @throws FreeGroupError inside an open free group.
   */
  restoreState(state: unknown): void {
    const snapshot = snapshotOf(state, this.geometry);
    if (this.groupOpen) throw new FreeGroupError('restoreState inside an open free group');
    if (snapshot.pageState !== null) checkSnapshotStates(snapshot);
    this.freeList.assign(snapshot.free);
    this.staged.set(snapshot.staged, 0);
    this.stagedCount = snapshot.staged.length;
    if (this.checks === true) this.renumber();
  }

  /** Every page free (ascending), nothing staged, no open group. */
  clear(): void {
    this.freeList.fillAscending(1, this.numPages);
    this.stagedCount = 0;
    this.groupOpen = false;
    this.group.empty();
    this.tag.fill(0);
    if (this.checks === true) this.renumber();
  }

  /** The free list front first, and the staged pages, as copies (for tests and exact comparison). */
  inspect(): { readonly free: Int32Array; readonly staged: Int32Array } {
    return { free: this.freeList.toArray(), staged: this.staged.slice(0, this.stagedCount) };
  }

  /**
   * Whole-structure check for quiet points (after a model command, at drain); O(numPages).
   *
   * @throws InvariantError naming the first broken invariant.
   */
  verifyInvariants(): void {
    const where = new Int8Array(this.numPages + 1);
    const mark = (page: number, list: string): void => {
      assert(Number.isInteger(page) && page >= 1 && page <= this.numPages, `${list} holds page ${page}, outside [1, ${this.numPages}]`);
      assert(where[page] === 0, `page ${page} appears twice in the free and staged lists`);
      where[page] = 1;
    };
    for (let i = 0; i < this.freeList.count; i++) mark(this.freeList.at(i), 'the free list');
    for (let i = 0; i < this.stagedCount; i++) mark(this.staged[i] as number, 'the staged list');
    if (this.checks !== true) return;
    const states = this.pageStates();
    assert(states[0] === kPageReserved, `page 0 has state ${states[0]}, not reserved`);
    for (let page = 1; page <= this.numPages; page++) {
      const expect = where[page] === 1 ? kPageFree : this.groupOpen ? -1 : kPageHeld;
      const actual = states[page] as number;
      if (expect === -1) assert(actual === kPageHeld || actual === kPageQueued, `page ${page} has state ${actual} but is not in the free lists`);
      else assert(actual === expect, `page ${page} has state ${actual} but is ${where[page] === 1 ? '' : 'not '}in the free lists`);
    }
  }

  // ---- the engine's rules that differ between the two allocators ------------------------------

  /** The engine's `_release_page_ids`: where given-back pages go (staging, front or back). */
  protected abstract releasePages(pages: Int32Array, start: number, n: number): void;

  /** One plain free's distinct pages; the paged allocator sorts them first (the engine's `unique`). */
  protected releasePlain(pages: Int32Array, n: number): void {
    this.release(pages, 0, n);
  }

  /** Queues a segment's page representatives in the open group. */
  protected abstract queueSegment(pages: Int32Array, start: number, n: number): void;

  /** Merges staged pages when an `alloc` of `pageCount` pages finds the free list short. */
  protected mergeBeforeAlloc(pageCount: number): void {
    if (pageCount > this.freeList.count) this.mergeStaged();
  }

  /** The engine's extend heuristic: merge when `extendTokens / pageSize + batchSize + 1` exceeds the free list. */
  protected mergeBeforeExtend(extendTokens: number, batchSize: number): void {
    if (Math.floor(extendTokens / this.pageSize) + batchSize + 1 > this.freeList.count) this.mergeStaged();
  }

  /**
   * The engine's decode rule: merge when the batch size exceeds the free list. Checks on, the
   * lastLoc check runs first when there is something to merge (it otherwise rides planDecode); under
   * the rule's branch, a call that merges nothing pays nothing for it.
   */
  protected mergeBeforeDecode(batch: DecodeBatch): void {
    if (batch.seqLens.length <= this.freeList.count) return;
    if (this.checks === true && this.stagedCount > 0) this.verifyDecodeLastLocs(batch);
    this.mergeStaged();
  }

  /**
   * The decode layout into `out`; with checks on, refuses a batch whose lastLoc does not fit
   * (nothing changed yet). Power-of-two pages take the mask planners in both modes (see
   * `planDecodePow2Into`); the token allocator overrides it with the page-1 planner.
   */
  protected planDecode(batch: DecodeBatch, out: Int32Array): void {
    const { buf, head } = this.freeList;
    if (this.pageShift < 0) {
      if (this.checks === true) this.verifyDecodeLastLocs(batch);
      planDecodeInto(batch, this.pageSize, buf, head, out);
    } else if (this.checks !== true) {
      planDecodePow2Into(batch, this.pageSize, buf, head, out);
    } else if (planDecodeChecked(batch, this.pageSize, buf, head, out) !== 0) {
      this.verifyDecodeLastLocs(batch);
    }
  }

  // The batch calls' passes are methods of their own: with the module functions called in their
  // bodies, V8 inlined them differently with checks on and off, and the checked calls ran slower.
  private validateExtend(batch: ExtendBatch): number {
    return validateExtend(batch, this.pageSize, this.pageShift, this.checks === true);
  }

  private countExtendPages(batch: ExtendBatch): number {
    return countExtendPages(batch.prefixLens, batch.seqLens, this.pageSize);
  }

  private planExtend(batch: ExtendBatch, out: Int32Array): void {
    planExtendInto(batch, this.pageSize, this.freeList.buf, this.freeList.head, out);
  }

  /** The segment free's validation (segment-validation.ts), a method for the reason above; returns the page count. */
  protected validateSegments(segments: readonly FreeSegment[]): number {
    return validateSegments(segments, this.geometry, this.checks === true);
  }

  private validateDecode(batch: DecodeBatch): void {
    validateDecode(batch, this.pageSize, this.checks === true);
  }

  private countDecodePages(batch: DecodeBatch): number {
    return this.pageShift >= 0 ? countDecodePagesPow2(batch.seqLens, this.pageSize) : countDecodePages(batch.seqLens, this.pageSize);
  }

  /** Checks on, the exact lastLoc pass of a decode batch (a call, not the arguments, in the hot callers' bytecode). */
  protected verifyDecodeLastLocs(batch: DecodeBatch): void {
    verifyDecodeLastLocs(batch.seqLens, batch.lastLoc, this.pageSize);
  }

  // ---- hand-out and release -------------------------------------------------------------------

  /** The slots of the first `pageCount` pages of the free list, page after page, into `out`. */
  private fillPages(out: Int32Array, pageCount: number): void {
    const ps = this.pageSize;
    const { buf, head } = this.freeList;
    for (let j = 0; j < pageCount; j++) {
      const base = (buf[head + j] as number) * ps;
      for (let o = 0; o < ps; o++) out[j * ps + o] = base + o;
    }
  }

  /**
   * Releases pages in the subclass's reuse order. With checks on, the caller has already moved
   * their states to free (in the loop that collected them); only the page count is checked here.
   */
  protected release(pages: Int32Array, start: number, n: number): void {
    this.releasePages(pages, start, n);
    if (this.checks === true && this.freeList.count + this.stagedCount > this.numPages) {
      assert(false, `${this.freeList.count + this.stagedCount} free pages of ${this.numPages}: a page was released twice`);
    }
  }

  /** One segment's page representatives `pages[start, start + n)`: queued in an open group, else released. */
  private releaseSegment(pages: Int32Array, start: number, n: number): void {
    if (n === 0) return;
    if (this.groupOpen) this.queueSegment(pages, start, n);
    else this.release(pages, start, n);
  }

  /** Queues pages as a plain free of the open group (each page once per group). */
  protected queuePlain(pages: Int32Array, start: number, n: number): void {
    this.group.queuePlain(pages, start, n);
  }

  /** Queues pages as a segment free's representatives in the open group. */
  protected queueReps(pages: Int32Array, start: number, n: number): void {
    this.group.queueReps(pages, start, n);
  }
}
