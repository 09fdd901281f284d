import { resolveAllocatorConfig } from '../config.js';
import { widenedPageSize } from '../dcp.js';
import { ArgumentError, DoubleFreeError, FreeGroupError, LastLocError, SegmentError, SlotRangeError } from '../errors.js';
import { assert } from '../internal/assert.js';
import { checkSnapshotStates, makeSnapshot, snapshotOf } from '../internal/snapshot.js';
import { ceilToPage, divCeil, divExact, divFloor, floorToPage, pageOfSlot } from '../page-math.js';
import type { AllocatorConfig, DecodeBatch, ExtendBatch, FreeSegment, PageAllocator, ResolvedAllocatorConfig } from '../types.js';
import { snapshotCodeOf, type PageState } from './page-state.js';

/**
 * The plain reference allocator: SGLang's token allocator (`allocator/token.py`, page size 1)
 * and paged allocator (`allocator/paged.py`, with the free groups of `allocator/base.py`) as
 * simple data — a state per page and the free list as a plain array in the engine's order — with
 * each engine rule in one method, named after it. It is the exact-mode reference of the fuzz
 * models and the class every planted bug of `fuzz/mutants` overrides, one method per bug; the fast
 * `PagedAllocator` and `TokenAllocator` are held to it call by call. Simple, not fast: each call
 * costs O(pages it touches) in loops, plus native copies of the free list as the engine's
 * `torch.cat` makes.
 *
 * With checks on, it refuses what CONTRACT.md refuses with checks on (A24, A25) with the typed
 * errors of `errors.ts`, before any change; with checks off it does what the engine does without
 * its debug asserts. The rules that hold in both modes (A20–A23) are refused either way.
 *
 * Invariants (checked by {@link ReferenceAllocator.verifyInvariants}):
 * 1. every page `1 … numPages` is on the free list, staged, held, or queued in the open group — one of them;
 * 2. the free list and the staged list hold no page twice and never page 0;
 * 3. with checks on, `pageState` says where each page is (page 0 `'reserved'`).
 * A caller that gives back a page it does not hold with checks off may break them, as in the engine.
 *
 * Each rule is a protected method, so a planted bug is a subclass that overrides the one method
 * holding the rule it breaks.
 */
export class ReferenceAllocator implements PageAllocator {
  readonly config: ResolvedAllocatorConfig;
  readonly pageSize: number;
  readonly numPages: number;
  /** One past the last slot: `(numPages + 1) × pageSize`. */
  readonly slotEnd: number;
  readonly checks: boolean;
  readonly needSort: boolean;

  // pageState[p]: where page p is (see PageState). Kept in both modes; only checks on refuse by it.
  protected pageState: PageState[] = [];
  // The free list, front first: the engine's `free_pages`.
  protected freePages: number[] = [];
  // needSort: given-back pages in release order, waiting for a merge: the engine's `staged_pages`.
  protected stagedPages: number[] = [];
  // The open group's plain frees, a copy of each call's slots; null outside a group: the engine's `free_group`.
  protected freeGroup: ArrayLike<number>[] | null = null;
  // The open group's segment representatives (slots), a copy per segment: the engine's `free_page_reps_group`.
  protected freeGroupReps: number[][] = [];

  /**
   * @param config - pool size and geometry; see {@link AllocatorConfig}.
   * @throws ConfigError naming the bad value.
   */
  constructor(config: AllocatorConfig) {
    this.config = resolveAllocatorConfig(config);
    this.pageSize = this.allocatorPageSize(this.config);
    this.numPages = divExact(this.config.sizeTokens, this.pageSize);
    this.slotEnd = (this.numPages + 1) * this.pageSize;
    this.checks = this.config.checks;
    this.needSort = this.config.needSort;
    this.clear();
  }

  // ---- geometry and routing --------------------------------------------------------------------

  /** A1: the allocator page is the kernel page widened by the DCP size, so logical page p is physical page p on every rank (`allocator/dcp.py`). */
  protected allocatorPageSize(config: ResolvedAllocatorConfig): number {
    return widenedPageSize(config.kernelPageSize, config.dcpSize);
  }

  /** The engine builds its token allocator at allocator page size 1 and the paged allocator above; every rule that differs asks this. */
  protected isTokenAllocator(): boolean {
    return this.pageSize === 1;
  }

  // ---- the public calls ------------------------------------------------------------------------

  /** A11: free and staged pages, times the page size; pages queued in an open group are not free yet. */
  availableSize(): number {
    return (this.freePages.length + this.stagedPages.length) * this.pageSize;
  }

  /**
   * Whole pages for `needSize` slots, from the front of the free list (A7).
   *
   * @throws ArgumentError when `needSize` is negative, not an integer or not a page multiple (A20).
   */
  alloc(needSize: number): Int32Array | null {
    this.checkAllocSize(needSize);
    const pageCount = needSize / this.pageSize;
    if (pageCount === 0) return new Int32Array(0);
    const pages = this.allocPages(pageCount);
    return pages === null ? null : this.slotsOfPages(pages);
  }

  /**
   * The new slots of an extend batch, request after request (A8).
   *
   * @throws ArgumentError for arrays of different lengths or a bad length (A21).
   * @throws LastLocError (checks on) for a lastLoc that does not fit its prefix (A25).
   */
  allocExtend(batch: ExtendBatch): Int32Array | null {
    this.checkExtendBatch(batch);
    if (this.checks) this.checkExtendLastLocs(batch);
    const batchSize = batch.prefixLens.length;
    if (batchSize === 0) return new Int32Array(0);
    const extendTokens = this.extendTokenCount(batch);
    if (this.isTokenAllocator()) return this.slotsOrNull(this.allocPages(extendTokens));
    this.mergeBeforeExtend(extendTokens, batchSize);
    return this.extendPaged(batch);
  }

  /**
   * One new slot per request (A9).
   *
   * @throws ArgumentError for arrays of different lengths or a bad length (A21).
   * @throws LastLocError (checks on) for a lastLoc that does not fit `seq − 1` (A25).
   */
  allocDecode(batch: DecodeBatch): Int32Array | null {
    this.checkDecodeBatch(batch);
    if (this.checks) this.checkDecodeLastLocs(batch);
    const batchSize = batch.seqLens.length;
    if (batchSize === 0) return new Int32Array(0);
    if (this.isTokenAllocator()) return this.slotsOrNull(this.allocPages(batchSize));
    this.mergeBeforeDecode(batchSize);
    return this.decodePaged(batch);
  }

  /**
   * Gives back the whole page of every slot (A12); inside a free group the call is queued (A13).
   *
   * @throws SlotRangeError (checks on) naming every slot outside the pool (A24).
   * @throws DoubleFreeError (checks on) naming every page that is not held (A24).
   */
  free(indices: ArrayLike<number>): void {
    if (indices.length === 0) return;
    if (this.checks) this.checkFree(indices);
    if (this.freeGroup !== null) {
      this.queueFree(indices);
      return;
    }
    this.releasePages(this.uniquePages(this.pagesOf(indices)));
  }

  /**
   * Gives back page-aligned, page-disjoint row segments; every segment is checked before any is
   * released (A17), where the engine checks and frees them one at a time.
   *
   * @throws ArgumentError when `segments` is not an array.
   * @throws SegmentError for a bad start or a shared page (A22), or (checks on) a block that breaks its page.
   * @throws SlotRangeError (checks on) for a slot outside the pool.
   * @throws DoubleFreeError (checks on) naming every page not held or named twice (A24).
   */
  freeSegments(segments: readonly FreeSegment[]): void {
    this.checkSegments(segments);
    if (this.checks) this.checkSegmentPages(segments);
    for (const segment of segments) this.freeSegment(segment);
  }

  /** @throws FreeGroupError when a group is already open (A23). */
  freeGroupBegin(): void {
    if (this.freeGroup !== null) throw new FreeGroupError('free groups cannot be nested');
    this.freeGroup = [];
    this.emptyGroupReps();
  }

  /**
   * Releases the group: its plain frees as one free, then its segment representatives as queued
   * (`paged.py` `free_group_end`).
   *
   * @throws FreeGroupError when no group is open (A23).
   */
  freeGroupEnd(): void {
    if (this.freeGroup === null) throw new FreeGroupError('freeGroupEnd without a matching freeGroupBegin');
    const plain = this.freeGroup;
    const reps = this.freeGroupReps;
    this.freeGroup = null;
    this.emptyGroupReps();
    const plainPages = this.uniquePages(this.pagesOf(plain.flatMap((slots) => Array.from(slots))));
    const repPages = this.pagesOf(reps.flat());
    if (this.checks) for (const page of [...plainPages, ...repPages]) assert(this.pageState[page] === 'queued', `group end releases page ${page} in state ${this.pageState[page]}`);
    this.releasePages(plainPages);
    this.releasePages(repPages);
  }

  /**
   * A deep copy of the free state (A14).
   *
   * @throws FreeGroupError inside an open free group.
   */
  backupState(): unknown {
    if (this.freeGroup !== null) throw new FreeGroupError('backupState inside an open free group');
    return makeSnapshot(this, Int32Array.from(this.freePages), Int32Array.from(this.stagedPages), this.checks ? Uint8Array.from(this.pageState, snapshotCodeOf) : null);
  }

  /**
   * Returns to a snapshot (A14): pages handed out since are free again, frees since are undone.
   *
   * @throws StateError when `state` is not a snapshot of this geometry and checks setting, or (checks on) its states disagree with its lists.
   * @throws FreeGroupError inside an open free group.
   */
  restoreState(state: unknown): void {
    const snapshot = snapshotOf(state, this);
    if (this.freeGroup !== null) throw new FreeGroupError('restoreState inside an open free group');
    if (this.checks) checkSnapshotStates(snapshot);
    this.freePages = Array.from(snapshot.free);
    this.stagedPages = Array.from(snapshot.staged);
    this.pageState = this.statesOfLists();
  }

  /** A15: every page free (ascending), nothing staged, no open group. */
  clear(): void {
    this.freePages = this.initialFreePages();
    this.stagedPages = [];
    this.freeGroup = null;
    this.freeGroupReps = [];
    this.pageState = this.statesOfLists();
  }

  /** The free list front first, and the staged pages, as copies (for tests and exact comparison). */
  inspect(): { readonly free: Int32Array; readonly staged: Int32Array } {
    return { free: Int32Array.from(this.freePages), staged: Int32Array.from(this.stagedPages) };
  }

  /**
   * Whole-structure check for quiet points; O(numPages).
   *
   * @throws InvariantError naming the first broken invariant.
   */
  verifyInvariants(): void {
    const listed = new Set<number>();
    for (const [list, pages] of [['free', this.freePages], ['staged', this.stagedPages]] as const) {
      for (const page of pages) {
        assert(Number.isInteger(page) && page >= 1 && page <= this.numPages, `the ${list} list holds page ${page}, outside [1, ${this.numPages}]`);
        assert(!listed.has(page), `page ${page} appears twice in the free and staged lists`);
        listed.add(page);
      }
    }
    if (!this.checks) return;
    assert(this.pageState[0] === 'reserved', `page 0 is ${this.pageState[0]}, not reserved`);
    for (const page of this.freePages) assert(this.pageState[page] === 'free', `page ${page} is on the free list but ${this.pageState[page]}`);
    for (const page of this.stagedPages) assert(this.pageState[page] === 'staged', `page ${page} is staged but ${this.pageState[page]}`);
    for (let page = 1; page <= this.numPages; page++) {
      if (listed.has(page)) continue;
      const state = this.pageState[page];
      assert(state === 'held' || (state === 'queued' && this.freeGroup !== null), `page ${page} is not listed but ${state}`);
    }
  }

  // ---- allocation rules ------------------------------------------------------------------------

  /** A20: `alloc` takes a non-negative page multiple (the engine asserts it only in debug mode, and floors otherwise). */
  protected checkAllocSize(needSize: number): void {
    if (!Number.isInteger(needSize) || needSize < 0) throw new ArgumentError(`alloc size ${String(needSize)} is not a non-negative integer`);
    if (needSize % this.pageSize !== 0) throw new ArgumentError(`alloc size ${needSize} is not a multiple of the page size ${this.pageSize}`);
  }

  /** `alloc`'s page step: merge by the allocator's rule, then the first `pageCount` pages of the free list, or null when short (A10). */
  protected allocPages(pageCount: number): number[] | null {
    this.mergeBeforeAlloc(pageCount);
    if (pageCount > this.freePages.length) return null;
    return this.takeFreePages(pageCount);
  }

  /**
   * When an `alloc` of `pageCount` pages merges the staged pages: the paged allocator whenever the
   * free list is short (`paged.py` `alloc`); the token allocator only when the staged pages make up
   * the difference, answering null at once otherwise (A19, the newer `token.py`).
   */
  protected mergeBeforeAlloc(pageCount: number): void {
    const short = pageCount > this.freePages.length;
    if (!this.isTokenAllocator()) {
      if (short) this.mergeAndSortFree();
    } else if (short && pageCount <= this.freePages.length + this.stagedPages.length) {
      this.mergeAndSortFree();
    }
  }

  /** `paged.py` `alloc_extend`: merge when `extend_num_tokens // page_size + bs + 1` exceeds the free list (a bound, not the batch's need). */
  protected mergeBeforeExtend(extendTokens: number, batchSize: number): void {
    if (divFloor(extendTokens, this.pageSize) + batchSize + 1 > this.freePages.length) this.mergeAndSortFree();
  }

  /** `paged.py` `alloc_decode`: merge when the batch size exceeds the free list. */
  protected mergeBeforeDecode(batchSize: number): void {
    if (batchSize > this.freePages.length) this.mergeAndSortFree();
  }

  /** `merge_and_sort_free`: the staged pages join the free list, and the whole list is sorted ascending. */
  protected mergeAndSortFree(): void {
    if (this.stagedPages.length === 0) return;
    for (const page of this.stagedPages) this.pageState[page] = 'free';
    this.freePages = this.freePages.concat(this.stagedPages).sort((a, b) => a - b);
    this.stagedPages = [];
  }

  /** The first `pageCount` pages of the free list are handed out (`free_pages[num_pages:]`). */
  protected takeFreePages(pageCount: number): number[] {
    const pages = this.freePages.splice(0, pageCount);
    for (const page of pages) this.pageState[page] = 'held';
    return pages;
  }

  /** A7: each page as its slots in order, `p × pageSize + [0, pageSize)`. */
  protected slotsOfPages(pages: readonly number[]): Int32Array {
    const ps = this.pageSize;
    const out = new Int32Array(pages.length * ps);
    pages.forEach((page, j) => {
      for (let offset = 0; offset < ps; offset++) out[j * ps + offset] = page * ps + offset;
    });
    return out;
  }

  /** The slots of pages handed out by {@link allocPages}, or null. */
  private slotsOrNull(pages: number[] | null): Int32Array | null {
    return pages === null ? null : this.slotsOfPages(pages);
  }

  /** A21: arrays of one length; a non-negative integer prefix, an integer `seq ≥ prefix` and an int32 `lastLoc` per request. */
  protected checkExtendBatch(batch: ExtendBatch): void {
    const { prefixLens, seqLens, lastLoc } = batch;
    const n = prefixLens.length;
    if (seqLens.length !== n || lastLoc.length !== n) {
      throw new ArgumentError(`extend batch arrays differ in length: prefixLens ${n}, seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`);
    }
    for (let i = 0; i < n; i++) {
      const pre = prefixLens[i] as number;
      const seq = seqLens[i] as number;
      const last = lastLoc[i] as number;
      if (!Number.isInteger(pre) || pre < 0) throw new ArgumentError(`request ${i}: prefixLens ${String(pre)} is not a non-negative integer`);
      if (!Number.isInteger(seq) || seq < 0) throw new ArgumentError(`request ${i}: seqLens ${String(seq)} is not a non-negative integer`);
      if (seq < pre) throw new ArgumentError(`request ${i}: seqLens ${seq} < prefixLens ${pre}`);
      if (!isInt32(last)) throw new ArgumentError(`request ${i}: lastLoc ${String(last)} is not a 32-bit integer`);
    }
  }

  /** A21: arrays of one length; an integer `seq ≥ 1` and an int32 `lastLoc` per request. */
  protected checkDecodeBatch(batch: DecodeBatch): void {
    const { seqLens, lastLoc } = batch;
    const n = seqLens.length;
    if (lastLoc.length !== n) throw new ArgumentError(`decode batch arrays differ in length: seqLens ${n}, lastLoc ${lastLoc.length}`);
    for (let i = 0; i < n; i++) {
      const seq = seqLens[i] as number;
      const last = lastLoc[i] as number;
      if (!Number.isInteger(seq) || seq < 1) throw new ArgumentError(`request ${i}: seqLens ${String(seq)} is not an integer >= 1`);
      if (!isInt32(last)) throw new ArgumentError(`request ${i}: lastLoc ${String(last)} is not a 32-bit integer`);
    }
  }

  /** A25 for an extend: each request holds its prefix. */
  protected checkExtendLastLocs(batch: ExtendBatch): void {
    for (let i = 0; i < batch.prefixLens.length; i++) this.checkLastLoc(i, batch.prefixLens[i] as number, batch.lastLoc[i] as number, 'prefix');
  }

  /** A25 for a decode: each request holds `seq − 1` tokens. */
  protected checkDecodeLastLocs(batch: DecodeBatch): void {
    for (let i = 0; i < batch.seqLens.length; i++) this.checkLastLoc(i, (batch.seqLens[i] as number) - 1, batch.lastLoc[i] as number, 'seqLens - 1');
  }

  /**
   * A25: the lastLoc of a row holding `held` tokens is −1 when the row is empty, else a slot with
   * `(lastLoc + 1) % pageSize == held % pageSize` (`paged.py` asserts the second in debug mode).
   * Whether lastLoc's page is held is the ledger's to check.
   */
  protected checkLastLoc(request: number, held: number, lastLoc: number, heldName: string): void {
    const ps = this.pageSize;
    if (held === 0) {
      if (lastLoc !== -1) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} must be -1 when ${heldName} is 0`);
      return;
    }
    const lastMod = (((lastLoc + 1) % ps) + ps) % ps;
    if (lastMod !== held % ps) {
      throw new LastLocError(`request ${request}: lastLoc ${lastLoc} does not fit ${heldName} ${held}: (lastLoc + 1) % ${ps} = ${lastMod}, ${heldName} % ${ps} = ${held % ps}`);
    }
  }

  /** `Σ (seq − prefix)`: the slots an extend returns. */
  protected extendTokenCount(batch: ExtendBatch): number {
    let tokens = 0;
    for (let i = 0; i < batch.prefixLens.length; i++) tokens += (batch.seqLens[i] as number) - (batch.prefixLens[i] as number);
    return tokens;
  }

  /** `paged.py` `alloc_extend` after its merge: the page count first, so a short free list answers null with nothing taken (A10). */
  protected extendPaged(batch: ExtendBatch): Int32Array | null {
    const pageCount = this.extendPageCount(batch);
    if (pageCount > this.freePages.length) return null;
    const out = this.extendLayout(batch, this.freePages);
    this.takeFreePages(pageCount);
    return out;
  }

  /** `get_num_new_pages` for an extend: `Σ ceil(seq / ps) − ceil(prefix / ps)`. */
  protected extendPageCount(batch: ExtendBatch): number {
    let pageCount = 0;
    for (let i = 0; i < batch.prefixLens.length; i++) pageCount += divCeil(batch.seqLens[i] as number, this.pageSize) - divCeil(batch.prefixLens[i] as number, this.pageSize);
    return pageCount;
  }

  /**
   * The extend layout (`alloc_extend_kernel`, A8): requests take pages from the front of
   * `freePages` in batch order, and each writes (1) the rest of its last page after lastLoc,
   * (2) whole new pages, (3) the tail at the start of its last new page.
   */
  protected extendLayout(batch: ExtendBatch, freePages: readonly number[]): Int32Array {
    const ps = this.pageSize;
    const out: number[] = [];
    // Σ over the earlier requests of their new pages: where this request's pages start.
    let pageCursor = 0;
    for (let i = 0; i < batch.prefixLens.length; i++) {
      const pre = batch.prefixLens[i] as number;
      const seq = batch.seqLens[i] as number;
      const last = batch.lastLoc[i] as number;
      const newPages = divCeil(seq, ps) - divCeil(pre, ps);
      const preCeil = ceilToPage(pre, ps);
      const seqFloor = floorToPage(seq, ps);
      for (let pos = pre; pos < Math.min(seq, preCeil); pos++) out.push(last + 1 + (pos - pre));
      if (seq > preCeil) {
        for (let pos = preCeil; pos < seqFloor; pos++) out.push((freePages[pageCursor + divFloor(pos - preCeil, ps)] as number) * ps + (pos % ps));
        for (let pos = seqFloor; pos < seq; pos++) out.push((freePages[pageCursor + newPages - 1] as number) * ps + (pos - seqFloor));
      }
      pageCursor += newPages;
    }
    return Int32Array.from(out);
  }

  /** `paged.py` `alloc_decode` after its merge: the page count first, so a short free list answers null with nothing taken (A10). */
  protected decodePaged(batch: DecodeBatch): Int32Array | null {
    const pageCount = this.decodePageCount(batch);
    if (pageCount > this.freePages.length) return null;
    const out = this.decodeLayout(batch, this.freePages);
    this.takeFreePages(pageCount);
    return out;
  }

  /** `get_num_new_pages` for a decode: the requests whose new length starts a page, `seq % ps == 1`. */
  protected decodePageCount(batch: DecodeBatch): number {
    let pageCount = 0;
    for (let i = 0; i < batch.seqLens.length; i++) if ((batch.seqLens[i] as number) % this.pageSize === 1) pageCount++;
    return pageCount;
  }

  /** The decode layout (`alloc_decode_kernel`, A9): a request that starts a page takes the next free page's first slot, the others `lastLoc + 1`. */
  protected decodeLayout(batch: DecodeBatch, freePages: readonly number[]): Int32Array {
    const ps = this.pageSize;
    const out = new Int32Array(batch.seqLens.length);
    let pageCursor = 0;
    for (let i = 0; i < batch.seqLens.length; i++) {
      const startsPage = (batch.seqLens[i] as number) % ps === 1;
      out[i] = startsPage ? (freePages[pageCursor++] as number) * ps : (batch.lastLoc[i] as number) + 1;
    }
    return out;
  }

  // ---- give-back rules -------------------------------------------------------------------------

  /** The page of each slot (`free_index // page_size`). */
  protected pagesOf(slots: ArrayLike<number>): number[] {
    return Array.from(slots, (slot) => pageOfSlot(slot, this.pageSize));
  }

  /**
   * A12: a plain free's pages, each once. The paged allocator sorts them ascending (`paged.py`
   * `free` releases `torch.unique(...)`); the token allocator keeps the order they were first named.
   */
  protected uniquePages(pages: readonly number[]): number[] {
    const distinct = [...new Set(pages)];
    return this.isTokenAllocator() ? distinct : distinct.sort((a, b) => a - b);
  }

  /**
   * `_release_page_ids`: given-back pages wait in the staged list under needSort; otherwise they
   * go back to the free list in the allocator's reuse order.
   */
  protected releasePages(pages: readonly number[]): void {
    if (pages.length === 0) return;
    if (this.needSort) this.stagePages(pages);
    else if (this.isTokenAllocator()) this.appendFree(pages);
    else this.prependFree(pages);
    if (this.checks) assert(this.freePages.length + this.stagedPages.length <= this.numPages, `${this.freePages.length + this.stagedPages.length} free pages of ${this.numPages}: a page was released twice`);
  }

  /** needSort: `staged_pages.extend(page_ids)`, in release order, merged at the next shortage. */
  protected stagePages(pages: readonly number[]): void {
    for (const page of pages) this.pageState[page] = 'staged';
    this.stagedPages = this.stagedPages.concat(pages);
  }

  /** LIFO reuse of the paged allocator (A19): `free_pages = cat(page_ids, free_pages)`, so given-back pages are handed out next. */
  protected prependFree(pages: readonly number[]): void {
    for (const page of pages) this.pageState[page] = 'free';
    this.freePages = pages.concat(this.freePages);
  }

  /** FIFO reuse of the token allocator (A19): `free_pages = cat(free_pages, free_index)`. */
  protected appendFree(pages: readonly number[]): void {
    for (const page of pages) this.pageState[page] = 'free';
    this.freePages = this.freePages.concat(pages);
  }

  /**
   * A24 (checks on): every slot inside the pool, then every page named held — not free, staged,
   * queued in the open group, or page 0. A page named twice in one call is given back once (A12).
   */
  protected checkFree(indices: ArrayLike<number>): void {
    this.checkSlotsInPool(indices, 0, indices.length);
    const notHeld = new Set<number>();
    for (const page of this.pagesOf(indices)) if (this.pageState[page] !== 'held') notHeld.add(page);
    if (notHeld.size > 0) throw new DoubleFreeError([...notHeld]);
  }

  /** Checks on: `indices[start, end)` are integer slots of the pool, `[0, slotEnd)`; else SlotRangeError naming each that is not. */
  protected checkSlotsInPool(indices: ArrayLike<number>, start: number, end: number): void {
    const outside: number[] = [];
    for (let i = start; i < end; i++) {
      const slot = indices[i] as number;
      if (!Number.isInteger(slot) || slot < 0 || slot >= this.slotEnd) outside.push(slot);
    }
    if (outside.length > 0) throw new SlotRangeError(outside, this.slotEnd);
  }

  // ---- free groups -----------------------------------------------------------------------------

  /** A plain free inside the open group: its pages are queued, the call's slots copied (A13). */
  protected queueFree(indices: ArrayLike<number>): void {
    for (const page of this.pagesOf(indices)) this.pageState[page] = 'queued';
    (this.freeGroup as ArrayLike<number>[]).push(this.copyForGroup(indices));
  }

  /** A13: the group keeps a copy of what each call named (`base.py`: "Take ownership before a caller can mutate a deferred tensor view"). */
  protected copyForGroup(indices: ArrayLike<number>): ArrayLike<number> {
    return Array.from(indices);
  }

  /** The group's segment representatives start empty at `freeGroupBegin` and are emptied at `freeGroupEnd` (`paged.py`). */
  protected emptyGroupReps(): void {
    this.freeGroupReps = [];
  }

  // ---- segment frees ---------------------------------------------------------------------------

  /**
   * A22 in both modes: each non-empty segment starts on a page boundary, on a page after the
   * previous non-empty segment's last page. Checks on, a plain array's slots must all lie in the
   * pool (only an Int32Array guarantees int32 slots; its blocks are checked page by page after).
   */
  protected checkSegments(segments: readonly FreeSegment[]): void {
    if (!Array.isArray(segments)) throw new ArgumentError(`freeSegments takes an array of segments, got ${String(segments)}`);
    let prevEnd = -1;
    for (const { indices, startPos } of segments) {
      if (indices.length === 0) continue;
      if (!Number.isInteger(startPos) || startPos < 0) throw new SegmentError(`segment start ${String(startPos)} is not a non-negative integer`);
      this.checkSegmentDisjoint(startPos, prevEnd);
      this.checkSegmentAligned(startPos);
      prevEnd = startPos + indices.length;
    }
    if (this.checks) for (const { indices } of segments) if (!(indices instanceof Int32Array)) this.checkSlotsInPool(indices, 0, indices.length);
  }

  /** A22: a segment's first page lies after the page of the previous segment's last slot (`base.py` `free_segments`). */
  protected checkSegmentDisjoint(startPos: number, prevEnd: number): void {
    const ps = this.pageSize;
    if (prevEnd >= 0 && divFloor(startPos, ps) <= divFloor(prevEnd - 1, ps)) {
      throw new SegmentError(`segment at ${startPos} shares a page with the one ending at ${prevEnd} (page_size ${ps})`);
    }
  }

  /** A22: a segment starts on a page boundary (`paged.py` `free_segment` asserts it). */
  protected checkSegmentAligned(startPos: number): void {
    if (startPos % this.pageSize !== 0) throw new SegmentError(`segment start ${startPos} is not page-aligned (page_size ${this.pageSize})`);
  }

  /**
   * Checks on: first, every page block of every segment keeps its page ({@link checkBlockKeepsPage});
   * then A24: the page of every block is held, and named once in the call.
   */
  protected checkSegmentPages(segments: readonly FreeSegment[]): void {
    const ps = this.pageSize;
    for (const { indices, startPos } of segments) {
      for (let blockStart = 0; blockStart < indices.length; blockStart += ps) this.checkBlockKeepsPage(indices, startPos, blockStart, Math.min(blockStart + ps, indices.length));
    }
    const met = new Set<number>();
    const bad = new Set<number>();
    for (const { indices } of segments) {
      for (let blockStart = 0; blockStart < indices.length; blockStart += ps) {
        const page = pageOfSlot(indices[blockStart] as number, ps);
        if (this.pageState[page] !== 'held' || met.has(page)) bad.add(page);
        met.add(page);
      }
    }
    if (bad.size > 0) throw new DoubleFreeError([...bad]);
  }

  /**
   * Checks on, the row structure of one page block `indices[blockStart, blockEnd)` as far as the
   * free reads it: it starts on a page's first slot inside the pool and ends where its length puts
   * it (the middle slots are the ledger's to check). A block that does not throws SlotRangeError
   * for its slots outside the pool, else SegmentError naming its first slot off its place.
   */
  protected checkBlockKeepsPage(indices: ArrayLike<number>, startPos: number, blockStart: number, blockEnd: number): void {
    const ps = this.pageSize;
    const first = indices[blockStart] as number;
    const last = indices[blockEnd - 1] as number;
    if (Number.isInteger(first) && first >= 0 && first < this.slotEnd && first % ps === 0 && last === first + (blockEnd - blockStart) - 1) return;
    this.checkSlotsInPool(indices, blockStart, blockEnd);
    const page = pageOfSlot(first, ps);
    let at = blockStart;
    while (at < blockEnd && indices[at] === page * ps + (at - blockStart)) at++;
    throw new SegmentError(
      `segment at ${startPos}: row position ${startPos + at} holds slot ${indices[at]}, expected ${page * ps + (at - blockStart)} ` +
        `(offset ${at - blockStart} of page ${page}): the row breaks its page structure`,
    );
  }

  /**
   * One segment (`free_segment`): its page representatives are every pageSize-th slot from its
   * start (`free_index[::page_size]`), released as they are, without deduplication; inside an
   * open group they are queued.
   */
  protected freeSegment(segment: FreeSegment): void {
    const { indices } = segment;
    if (indices.length === 0) return;
    const reps: number[] = [];
    for (let i = 0; i < indices.length; i += this.pageSize) reps.push(indices[i] as number);
    if (this.freeGroup !== null) this.queueSegment(reps);
    else this.releasePages(this.pagesOf(reps));
  }

  /**
   * A segment free inside the open group: the paged allocator queues its representatives apart,
   * released after the group's plain frees; at page size 1 the engine's base `free_segment` is a
   * plain `free`, so they join the plain frees.
   */
  protected queueSegment(reps: number[]): void {
    for (const page of this.pagesOf(reps)) this.pageState[page] = 'queued';
    if (this.isTokenAllocator()) (this.freeGroup as ArrayLike<number>[]).push(reps);
    else this.freeGroupReps.push(reps);
  }

  // ---- state -----------------------------------------------------------------------------------

  /** A15: `free_pages = arange(1, num_pages + 1)`; page 0 takes the padded tokens' dummy writes and is never handed out. */
  protected initialFreePages(): number[] {
    return Array.from({ length: this.numPages }, (_, i) => i + 1);
  }

  /** Every page's state as the lists make it outside a group: listed pages free or staged, page 0 reserved, the rest held. */
  private statesOfLists(): PageState[] {
    const states = new Array<PageState>(this.numPages + 1).fill('held');
    for (const page of this.freePages) states[page] = 'free';
    for (const page of this.stagedPages) states[page] = 'staged';
    states[0] = 'reserved';
    return states;
  }
}

/** Whether `value` is an integer in int32 range (a `lastLoc` slot, or −1). */
function isInt32(value: number): boolean {
  return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31;
}
