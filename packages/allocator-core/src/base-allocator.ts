import { resolveAllocatorConfig } from './config.js';
import {
  ArgumentError,
  DoubleFreeError,
  FreeGroupError,
  LastLocError,
  SegmentError,
  SlotRangeError,
  StateError,
} from './errors.js';
import { assert } from './internal/assert.js';
import { FreeList, isListed } from './internal/free-list.js';
import { countDecodePages, countDecodePagesPow2, planDecodeInto, planDecodePow2Into } from './plan-decode.js';
import { countExtendPages, countExtendTokens, planExtendInto } from './plan-extend.js';
import { refuseAllocSize, refuseDecodeLengths, refuseDecodeRequest, refuseExtendLengths, refuseExtendRequest } from './internal/argument-refusals.js';
import { extendLastLocMiss, planDecodeChecked } from './internal/checked-plans.js';
import type {
  AllocatorConfig,
  DecodeBatch,
  ExtendBatch,
  FreeSegment,
  PageAllocator,
  ResolvedAllocatorConfig,
} from './types.js';

/** Page states, as snapshots and invariants report them (checks on). */
export const kPageFree = 0;
export const kPageHeld = 1;
/** Given back inside an open free group; released at `freeGroupEnd`. */
export const kPageQueued = 2;
/** Page 0: receives the padded tokens' dummy writes, never handed out, never given back. */
export const kPageReserved = 3;

// Checks on, `tag[p]` holds page p's state by serial (see BaseAllocator): a free-list page carries
// the serial of its place there (≥ 0); these negative tags mark the states the list cannot tell;
// any other tag — kTagHeld, or the stale serial of a place the page has left — is a held page.
export const kTagHeld = 0;
export const kTagStaged = -1;
export const kTagQueued = -2;
export const kTagReserved = -3;
/** Serials start again from 1 before the list's last serial passes this, so `serial + pageCount` stays an int32. */
export const kSerialMax = 2 ** 30;

/** Call stamps (of a free, a group, a checked call's dedupe) are positive int32s; at this one they start again from 1. */
const kStampMax = 0x7fffffff;

/** A snapshot from `backupState`; opaque to callers. */
export interface AllocatorSnapshot {
  readonly kind: 'kvfuzz.allocator-state';
  readonly pageSize: number;
  readonly numPages: number;
  readonly free: Int32Array;
  readonly staged: Int32Array;
  readonly pageState: Uint8Array | null;
}

/**
 * What the token and paged allocators share: the free list, `needSort` staging, free groups,
 * snapshots and the in-line exactly-once checks. Subclasses choose the reuse order.
 *
 * Invariants (checked by {@link BaseAllocator.verifyInvariants}):
 * 1. free + staged + queued + held = numPages, and no page is in two of them;
 * 2. the free list and the staged list hold no page twice and never page 0;
 * 3. with checks on, the page states agree with the lists (free or staged ⇔ kPageFree, open group ⇔ kPageQueued).
 *
 * Checks on, a page's state is kept by serial: a page given back gets the serial of the place it
 * takes in the free list ({@link FreeList} serials survive the list's moves), so a page is free
 * exactly when its tag names a place inside the list that holds that page. Handing pages out
 * moves the list's front past them and writes no page state at all; a free reads each page's tag
 * and the list entry it names, and the release writes the new serials where it writes the list.
 * Staged, queued and reserved pages carry negative tags. A page cannot be handed out twice without
 * having been put in the list twice, which every checked way in refuses; the ledger covers the rest.
 * Code shared by both allocators reads and writes a tag through {@link tagOf} / {@link setTag}: the
 * token allocator stores it less the page id (see `TokenAllocator`).
 *
 * Methods are protected rather than private so that `fuzz/mutants` can plant a bug in one step
 * by overriding it; nothing in this package overrides them outside the two subclasses.
 */
export abstract class BaseAllocator implements PageAllocator {
  readonly config: ResolvedAllocatorConfig;
  readonly pageSize: number;
  readonly numPages: number;
  /** One past the last slot: `(numPages + 1) * pageSize`. */
  readonly slotEnd: number;
  /**
   * Tested as `this.checks === true`, never by bare truthiness: V8 keeps no type for a field that
   * holds a boolean (it tracks object maps only), so `if (this.checks)` compiles to a chain of
   * compares (false, '', undetectable, heap number, bigint) that checks-on walks to its end every
   * time and checks-off leaves at the first; `=== true` is one pointer compare in both modes.
   * Measured on allocDecode + free of one request at pages 1 / 64 / 512: 1.026 / 1.045 / 1.038 →
   * 1.011 / 1.011 / 1.009.
   */
  protected readonly checks: boolean;
  protected readonly needSort: boolean;
  // For a power-of-two page size the checks find a slot's page by a shift and its offset by a mask
  // (an integer division costs tens of cycles, as much as the rest of a per-request check);
  // otherwise pageShift is -1 and pageMask 0.
  protected readonly pageShift: number;
  protected readonly pageMask: number;

  protected readonly freeList: FreeList;
  // staged[0, stagedCount): pages given back under needSort, merged sorted when an allocation runs short.
  protected readonly staged: Int32Array;
  protected stagedCount = 0;
  // Checks off, tag[p] is the stamp of the last call that met page p, so a call dedupes its pages
  // without clearing anything. Checks on, it is page p's serial or negative state (class comment).
  protected readonly tag: Int32Array;
  protected stamp = 0;
  // Checks on, the dedupe of a call: seen[p] === seenStamp once page p was met in it (tags hold serials).
  private seen: Int32Array | null = null;
  private seenStamp = 0;
  /** Serials start again from 1 before the list's last serial passes this (tests lower it). */
  protected readonly serialLimit: number = kSerialMax;
  // scratch[0, k): the distinct pages of the current call.
  protected readonly scratch: Int32Array;

  protected groupOpen = false;
  // groupPlain[0, groupPlainCount): pages of plain frees queued in the open group, each once.
  protected readonly groupPlain: Int32Array;
  protected groupPlainCount = 0;
  protected readonly groupSeen: Int32Array;
  protected groupStamp = 0;
  // groupReps[0, groupRepsCount): page representatives of segment frees queued in the open group,
  // not deduplicated (the engine releases them as they are). Grows only past numPages entries,
  // which takes a caller error under checks off.
  protected groupReps: Int32Array;
  protected groupRepsCount = 0;

  constructor(config: AllocatorConfig) {
    this.config = resolveAllocatorConfig(config);
    this.pageSize = this.config.pageSize;
    this.numPages = this.config.pageCount;
    this.slotEnd = (this.numPages + 1) * this.pageSize;
    this.checks = this.config.checks;
    this.needSort = this.config.needSort;
    const isPowerOfTwo = (this.pageSize & (this.pageSize - 1)) === 0;
    this.pageShift = isPowerOfTwo ? Math.log2(this.pageSize) : -1;
    this.pageMask = isPowerOfTwo ? this.pageSize - 1 : 0;
    const pageIds = this.numPages + 1;
    this.freeList = new FreeList(this.numPages);
    this.staged = new Int32Array(pageIds);
    this.tag = new Int32Array(pageIds);
    this.scratch = new Int32Array(pageIds);
    this.groupPlain = new Int32Array(pageIds);
    this.groupSeen = new Int32Array(pageIds);
    this.groupReps = new Int32Array(pageIds);
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
    this.handOut(pageCount);
    return out;
  }

  /**
   * The new slots of an extend batch, request after request (see `planExtendInto`).
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
    this.handOut(pageCount);
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
    // As in allocExtend: the lastLoc check rides planDecode unless a merge or a null answer comes first.
    this.mergeBeforeDecode(batch);
    const pageCount = this.countDecodePages(batch);
    if (pageCount > this.freeList.count) {
      if (this.checks === true) this.verifyDecodeLastLocs(batch);
      return null;
    }
    const out = new Int32Array(batchSize);
    this.planDecode(batch, out);
    this.handOut(pageCount);
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
    if (this.groupOpen) this.queuePlain(this.scratch, 0, k);
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
    this.groupPlainCount = 0;
    this.groupRepsCount = 0;
    if (this.groupStamp === kStampMax) {
      this.groupSeen.fill(0);
      this.groupStamp = 0;
    }
    this.groupStamp++;
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
    const plainCount = this.groupPlainCount;
    const repsCount = this.groupRepsCount;
    this.groupPlainCount = 0;
    this.groupRepsCount = 0;
    // Each list is settled right before its release: a subclass may number pages by where they land.
    if (plainCount > 0) {
      if (this.checks === true) this.settle(this.groupPlain, plainCount, kPageQueued, kPageFree);
      this.releasePlain(this.groupPlain, plainCount);
    }
    if (repsCount > 0) {
      if (this.checks === true) this.settle(this.groupReps, repsCount, kPageQueued, kPageFree);
      this.release(this.groupReps, 0, repsCount);
    }
  }

  /**
   * A deep copy of the free state (free list, staged pages, page states).
   *
   * @throws FreeGroupError inside an open free group.
   */
  backupState(): unknown {
    if (this.groupOpen) throw new FreeGroupError('backupState inside an open free group');
    const snapshot: AllocatorSnapshot = {
      kind: 'kvfuzz.allocator-state',
      pageSize: this.pageSize,
      numPages: this.numPages,
      free: this.freeList.toArray(),
      staged: this.staged.slice(0, this.stagedCount),
      pageState: this.checks === true ? this.pageStates() : null,
    };
    return Object.freeze(snapshot);
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
    const snapshot = this.asSnapshot(state);
    if (this.groupOpen) throw new FreeGroupError('restoreState inside an open free group');
    if (snapshot.pageState !== null) this.checkSnapshotStates(snapshot);
    this.freeList.assign(snapshot.free);
    this.staged.set(snapshot.staged, 0);
    this.stagedCount = snapshot.staged.length;
    if (this.checks === true) this.renumber();
  }

  /** Every page free (ascending), nothing staged, no open group. */
  clear(): void {
    this.resetFreeList();
    this.stagedCount = 0;
    this.groupOpen = false;
    this.groupPlainCount = 0;
    this.groupRepsCount = 0;
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

  // ---- hooks a subclass (or a planted mutant) overrides --------------------------------------

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

  /** Under needSort, given-back pages wait here until an allocation runs short. */
  protected stage(pages: Int32Array, start: number, n: number): void {
    for (let i = 0; i < n; i++) this.staged[this.stagedCount + i] = pages[start + i] as number;
    this.stagedCount += n;
    if (this.checks === true) for (let i = 0; i < n; i++) this.setTag(pages[start + i] as number, kTagStaged);
  }

  protected mergeStaged(): void {
    if (this.stagedCount === 0) return;
    this.freeList.append(this.staged, 0, this.stagedCount);
    this.stagedCount = 0;
    this.freeList.sortAscending();
    // Sorting moved pages: each takes the serial of its new place.
    if (this.checks === true) {
      this.numberFreeList();
      this.renumberNearLimit();
    }
  }

  /** Checks on: the `n` pages just put at the front of the list get the serials of their places. */
  protected numberFront(n: number): void {
    const { buf, head, serialBase } = this.freeList;
    if (serialBase + head < 1) {
      // A prepend that found no room moved the list to the far end, and the serials down with it.
      // Rebased in place, the front's serial is 1 again and the list keeps the room it just made
      // (renumber would move it back to the start, and the next such prepend would move it again).
      // Held pages keep their old serials: non-negative, and the list read tells them apart.
      this.freeList.serialBase = 1 - head;
      this.numberFreeList();
      return;
    }
    for (let i = 0; i < n; i++) this.tag[buf[head + i] as number] = serialBase + head + i;
  }

  protected resetFreeList(): void {
    this.freeList.fillAscending(1, this.numPages);
  }

  protected countExtendPages(batch: ExtendBatch): number {
    return countExtendPages(batch.prefixLens, batch.seqLens, this.pageSize);
  }

  protected countDecodePages(batch: DecodeBatch): number {
    return this.pageShift >= 0 ? countDecodePagesPow2(batch.seqLens, this.pageSize) : countDecodePages(batch.seqLens, this.pageSize);
  }

  /** The extend layout into `out` (the batch's lastLocs were checked in validateExtend). */
  protected planExtend(batch: ExtendBatch, out: Int32Array): void {
    const { buf, head } = this.freeList;
    planExtendInto(batch, this.pageSize, buf, head, out);
  }

  /**
   * The decode layout into `out`; with checks on, refuses a batch whose lastLoc does not fit
   * (nothing changed yet). Power-of-two pages take the mask planners in both modes (see
   * `planDecodePow2Into`). The token allocator overrides it with the page-1 planner: one dispatch
   * on the page shift less a call, which moved allocDecode + free of one request at page 1 from
   * 1.05 to 1.04.
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

  /** {@link verifyLastLocs} for a decode batch, whose requests hold `seq − 1` tokens (a call, not the arguments, in the hot callers' bytecode). */
  protected verifyDecodeLastLocs(batch: DecodeBatch): void {
    this.verifyLastLocs(batch.seqLens, batch.lastLoc, 1, 'seqLens - 1');
  }

  /**
   * Checks on, the lastLoc check as a pass of its own: request `i` holds `lengths[i] − lengthOffset`
   * tokens (prefix, or seq − 1 for decode). Throws `LastLocError` for the first request that does not fit.
   */
  protected verifyLastLocs(lengths: ArrayLike<number>, lastLoc: ArrayLike<number>, lengthOffset: number, heldName: string): void {
    for (let i = 0; i < lengths.length; i++) {
      const held = (lengths[i] as number) - lengthOffset;
      const last = lastLoc[i] as number;
      if (!this.lastLocFits(held, last)) this.refuseLastLoc(i, held, last, heldName);
    }
  }

  /**
   * Checks that hold whether or not checks are on: aligned starts, each segment after the previous
   * one's last page; checks on, also every slot of a plain array. Returns the segments' page
   * count (the checked one-pass frees reserve that much room; counted here, the validation's loop
   * over the segments is their only one before the free itself).
   */
  protected validateSegments(segments: readonly FreeSegment[]): number {
    if (!Array.isArray(segments)) throw new ArgumentError(`freeSegments takes an array of segments, got ${String(segments)}`);
    const ps = this.pageSize;
    const checks = this.checks === true;
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
    // touched (checked segment by segment, a bad slot in a later segment was met after the earlier
    // segments' pages had been marked).
    if (plain) for (const { indices } of segments) if (!(indices instanceof Int32Array)) this.checkSlots(indices, 0, indices.length);
    return pages;
  }

  // ---- shared mechanics ------------------------------------------------------------------------

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
   * the slot before it skipped: a row gives back page after page, so at pages 64 and 512 most
   * slots are. Repeats further apart stay. Both modes' paged free run this loop, so V8 compiles
   * their per-slot loop alike, and with the page shift read once, not chosen per slot. Four slots
   * are tested at a time (one OR of their differences from the page start) while they stay in
   * the page: alloc + free of the chat mix at page 512 130 → 107 µs in both modes.
   *
   * @returns the entry count, or −1 when there would be more than `limit`.
   */
  protected collectPageRuns(indices: ArrayLike<number>, n: number, limit: number): number {
    const { pageShift, scratch } = this;
    if (n === 0) return 0;
    if (limit < 1) return -1;
    // A slot's page start (slot & notMask) tells its page with an AND; only a new page is shifted.
    // Where V8 cannot fold the page shift to a constant, a variable shift per slot cost chat
    // alloc + free at page 512 about 3%.
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
    let prev = -1;
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
    if (!(indices instanceof Int32Array)) this.checkSlots(indices, 0, n);
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
      this.throwFreeError(indices, n);
    }
    return k;
  }

  /** Checks on, the dedupe stamps of a call (allocated at the first checked free that needs them). */
  protected seenPages(): Int32Array {
    return (this.seen ??= new Int32Array(this.numPages + 1));
  }

  /** The next call's dedupe stamp; at the limit the stamps are cleared. */
  protected nextSeenStamp(): number {
    if (this.seenStamp === kStampMax) {
      this.seenPages().fill(0);
      this.seenStamp = 0;
    }
    return ++this.seenStamp;
  }

  /** Slow path of a refused free: every slot outside the pool, else every distinct page not held. */
  protected throwFreeError(indices: ArrayLike<number>, n: number): never {
    this.checkSlots(indices, 0, n);
    const bad = new Set<number>();
    for (let i = 0; i < n; i++) {
      const page = Math.floor((indices[i] as number) / this.pageSize);
      if (this.stateOf(page) !== kPageHeld) bad.add(page);
    }
    assert(bad.size > 0, 'a free was refused but every page is held');
    throw new DoubleFreeError([...bad]);
  }

  /**
   * Moves `pages[0, n)` from state `from` to `to`, asserting they were in `from`. To free, the tag
   * is a placeholder: the release that follows numbers or stages each page.
   */
  protected settle(pages: Int32Array, n: number, from: number, to: number): void {
    const tag = this.tag;
    const target = to === kPageQueued ? kTagQueued : kTagHeld;
    for (let i = 0; i < n; i++) {
      const page = pages[i] as number;
      const state = this.stateOf(page);
      if (state !== from) assert(false, `page ${page} in state ${state}, expected ${from}`);
      tag[page] = target;
    }
  }

  /** One segment's page representatives `pages[start, start + n)`: queued in an open group, else released. */
  protected releaseSegment(pages: Int32Array, start: number, n: number): void {
    if (n === 0) return;
    if (this.groupOpen) this.queueSegment(pages, start, n);
    else this.release(pages, start, n);
  }

  protected queuePlain(pages: Int32Array, start: number, n: number): void {
    for (let i = start; i < start + n; i++) {
      const page = pages[i] as number;
      if (this.groupSeen[page] === this.groupStamp) continue;
      this.groupSeen[page] = this.groupStamp;
      this.groupPlain[this.groupPlainCount++] = page;
    }
  }

  protected queueReps(pages: Int32Array, start: number, n: number): void {
    if (this.groupRepsCount + n > this.groupReps.length) {
      const grown = new Int32Array(Math.max(2 * this.groupReps.length, this.groupRepsCount + n));
      grown.set(this.groupReps.subarray(0, this.groupRepsCount));
      this.groupReps = grown;
    }
    for (let i = start; i < start + n; i++) this.groupReps[this.groupRepsCount++] = pages[i] as number;
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

  /** The slots of the first `pageCount` pages of the free list, page after page, into `out`. */
  protected fillPages(out: Int32Array, pageCount: number): void {
    const ps = this.pageSize;
    const { buf, head } = this.freeList;
    for (let j = 0; j < pageCount; j++) {
      const base = (buf[head + j] as number) * ps;
      for (let o = 0; o < ps; o++) out[j * ps + o] = base + o;
    }
  }

  /**
   * The first `pageCount` pages of the free list are handed out (after the caller filled or planned
   * their slots from them): the front moves past them. With checks on that is their move to held
   * too (see the class comment), so nothing is written or called per page.
   */
  protected handOut(pageCount: number): void {
    this.freeList.take(pageCount);
  }

  protected checkSlots(indices: ArrayLike<number>, start: number, end: number): void {
    let bad: number[] | null = null;
    for (let i = start; i < end; i++) {
      const slot = indices[i] as number;
      if (!Number.isInteger(slot) || slot < 0 || slot >= this.slotEnd) (bad ??= []).push(slot);
    }
    if (bad !== null) throw new SlotRangeError(bad, this.slotEnd);
  }

  /**
   * Checks on, one pass over the page blocks of every segment, O(pages): each block must keep its
   * page's structure ({@link blockKeepsPage}), and its page must be held and met once in the call;
   * the page then goes to free (queued in an open group) and into `scratch`, in segment order. A
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
        if (!this.blockKeepsPage(first, indices[blockEnd - 1] as number, blockEnd - blockStart)) {
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

  /**
   * The in-line row-structure check of one page block, O(1): it starts on a page's first slot
   * inside the pool and its last slot is where its length puts it. Slots in the middle of a block
   * are the ledger's to check (a whole-row walk costs a read per slot where the free reads one per page).
   */
  protected blockKeepsPage(first: number, last: number, length: number): boolean {
    return first >= 0 && first < this.slotEnd && (first & this.pageMask) === 0 && (this.pageShift >= 0 || first % this.pageSize === 0) && last === first + length - 1;
  }

  /** Slow path of a refused segment free: the row-structure error, else every page not held or met twice. */
  protected refuseSegments(segments: readonly FreeSegment[]): never {
    const ps = this.pageSize;
    for (const { indices, startPos } of segments) {
      const n = indices.length;
      for (let blockStart = 0; blockStart < n; blockStart += ps) {
        const first = indices[blockStart] as number;
        const blockEnd = Math.min(blockStart + ps, n);
        if (Number.isInteger(first) && this.blockKeepsPage(first, indices[blockEnd - 1] as number, blockEnd - blockStart)) continue;
        this.checkSlots(indices, blockStart, blockEnd);
        // Name the first slot of the block that is off its place.
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
    this.throwSegmentFreeError(segments);
  }

  /** Every page of a refused segment free that is not held or is met twice. */
  private throwSegmentFreeError(segments: readonly FreeSegment[]): never {
    const ps = this.pageSize;
    const met = new Set<number>();
    const bad = new Set<number>();
    for (const { indices } of segments) {
      for (let i = 0; i < indices.length; i += ps) {
        const page = Math.floor((indices[i] as number) / ps);
        if (this.stateOf(page) !== kPageHeld || met.has(page)) bad.add(page);
        met.add(page);
      }
    }
    assert(bad.size > 0, 'a segment free was refused but every page is held once');
    throw new DoubleFreeError([...bad]);
  }

  protected validateExtend(batch: ExtendBatch): number {
    const { prefixLens, seqLens, lastLoc } = batch;
    const n = prefixLens.length;
    const checks = this.checks === true;
    const mask = this.pageSize - 1;
    let miss = 0;
    if (seqLens.length !== n || lastLoc.length !== n) refuseExtendLengths(n, seqLens.length, lastLoc.length);
    for (let i = 0; i < n; i++) {
      const pre = prefixLens[i] as number;
      const seq = seqLens[i] as number;
      const last = lastLoc[i] as number;
      if (!Number.isInteger(pre) || pre < 0 || !Number.isInteger(seq) || seq < pre || (last | 0) !== last) refuseExtendRequest(i, pre, seq, last);
      if (checks) miss |= extendLastLocMiss(pre, last, mask);
    }
    // Checks on: the rule rode the loop above for power-of-two pages; a miss, or another page
    // size, takes the pass that names the request.
    if (checks && (this.pageShift < 0 || miss !== 0)) this.verifyLastLocs(prefixLens, lastLoc, 0, 'prefix');
    return countExtendTokens(prefixLens, seqLens);
  }

  protected validateDecode(batch: DecodeBatch): void {
    const { seqLens, lastLoc } = batch;
    const n = seqLens.length;
    if (lastLoc.length !== n) refuseDecodeLengths(n, lastLoc.length);
    for (let i = 0; i < n; i++) {
      const seq = seqLens[i] as number;
      const last = lastLoc[i] as number;
      if (!Number.isInteger(seq) || seq < 1 || (last | 0) !== last) refuseDecodeRequest(i, seq, last);
    }
  }

  /**
   * `lastLoc` is the slot of row position `held - 1`: −1 for an empty row, else a slot with
   * `(lastLoc + 1) % pageSize == held % pageSize` (the contract's rule; whether its page is held
   * is the ledger's to check, see `internal/checked-plans.ts`).
   */
  protected lastLocFits(held: number, lastLoc: number): boolean {
    if (held === 0) return lastLoc === -1;
    return (lastLoc + 1 - held) % this.pageSize === 0;
  }

  /** Slow path of {@link lastLocFits}: throws `LastLocError` saying what is wrong. */
  protected refuseLastLoc(request: number, held: number, lastLoc: number, heldName: string): never {
    const ps = this.pageSize;
    if (held === 0) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} must be -1 when ${heldName} is 0`);
    const lastMod = (((lastLoc + 1) % ps) + ps) % ps;
    assert(lastMod !== held % ps, `request ${request}: lastLoc ${lastLoc} for ${heldName} ${held} was refused but fits`);
    throw new LastLocError(`request ${request}: lastLoc ${lastLoc} does not fit ${heldName} ${held}: (lastLoc + 1) % ${ps} = ${lastMod}, ${heldName} % ${ps} = ${held % ps}`);
  }

  /** Checks off: the next call's stamp; at the limit every stamp is cleared. */
  protected nextStamp(): number {
    if (this.stamp === kStampMax) {
      this.tag.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }

  /** Page `page`'s state with checks on (`undefined` tag — outside the pool — reads as free). */
  protected stateOf(page: number): number {
    const t = this.tag[page];
    if (t === undefined || t === kTagStaged) return kPageFree;
    if (t === kTagQueued) return kPageQueued;
    if (t === kTagReserved) return kPageReserved;
    const { buf, head, count, serialBase } = this.freeList;
    return isListed(page, t, buf, serialBase, serialBase + head, serialBase + head + count) ? kPageFree : kPageHeld;
  }

  /** Checks on: serials only grow under appends; before they near the int32 limit they start again from 1 (O(numPages), rare). */
  protected renumberNearLimit(): void {
    if (this.freeList.serialBase + this.freeList.buf.length > this.serialLimit) this.renumber();
  }

  /**
   * Checks on: every tag from the lists — free-list pages their serials (from 1), staged pages
   * staged, page 0 reserved, queued pages kept, the rest held.
   */
  protected renumber(): void {
    this.freeList.assign(this.freeList.toArray());
    // The front's serial starts above every page that can be held: a LIFO free numbers its pages
    // below the front, and the paged checked free takes its fast path only while they stay ≥ 1.
    this.freeList.serialBase = this.numPages + 1;
    for (let page = 1; page <= this.numPages; page++) if (this.tagOf(page) !== kTagQueued) this.setTag(page, kTagHeld);
    this.setTag(0, kTagReserved);
    this.numberFreeList();
    for (let i = 0; i < this.stagedCount; i++) this.setTag(this.staged[i] as number, kTagStaged);
  }

  /** Checks on: each free-list page gets the serial of its place. */
  protected numberFreeList(): void {
    const { buf, head, count } = this.freeList;
    const front = this.freeList.frontSerial();
    for (let i = 0; i < count; i++) this.setTag(buf[head + i] as number, front + i);
  }

  /**
   * Checks on: page `page`'s tag (a serial or a negative state) as the shared paths read and write
   * it. The paged allocator stores it as is; the token allocator stores it less the page id.
   */
  protected tagOf(page: number): number {
    return this.tag[page] as number;
  }

  protected setTag(page: number, value: number): void {
    this.tag[page] = value;
  }

  /** Checks on: a snapshot's page states must be what its lists make them (page 0 reserved, listed free, the rest held). */
  protected checkSnapshotStates(snapshot: AllocatorSnapshot): void {
    const { free, staged, pageState } = snapshot;
    const listed = new Uint8Array(this.numPages + 1);
    for (const page of free) listed[page] = 1;
    for (const page of staged) listed[page] = 1;
    for (let page = 0; page <= this.numPages; page++) {
      const expect = page === 0 ? kPageReserved : listed[page] === 1 ? kPageFree : kPageHeld;
      if ((pageState as Uint8Array)[page] !== expect) {
        throw new StateError(`restoreState: the snapshot marks page ${page} with state ${String((pageState as Uint8Array)[page])}, but its lists make it ${expect}`);
      }
    }
  }

  /** Every page's state, for snapshots and invariants. */
  protected pageStates(): Uint8Array {
    const states = new Uint8Array(this.numPages + 1);
    for (let page = 0; page <= this.numPages; page++) states[page] = this.stateOf(page);
    return states;
  }

  protected asSnapshot(state: unknown): AllocatorSnapshot {
    const s = state as Partial<AllocatorSnapshot> | null;
    if (typeof s !== 'object' || s === null || s.kind !== 'kvfuzz.allocator-state') {
      throw new StateError(`restoreState was given ${typeof state === 'object' ? 'an object' : String(state)} that backupState did not return`);
    }
    if (s.pageSize !== this.pageSize || s.numPages !== this.numPages) {
      throw new StateError(
        `restoreState: snapshot of pageSize ${String(s.pageSize)} × ${String(s.numPages)} pages does not fit pageSize ${this.pageSize} × ${this.numPages} pages`,
      );
    }
    if ((s.pageState === null) === this.checks) {
      throw new StateError(`restoreState: snapshot taken with checks ${s.pageState === null ? 'off' : 'on'} does not fit an allocator with checks ${this.checks ? 'on' : 'off'}`);
    }
    return s as AllocatorSnapshot;
  }
}
