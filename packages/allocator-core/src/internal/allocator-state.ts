import { resolveAllocatorConfig } from '../config.js';
import type { AllocatorConfig, ResolvedAllocatorConfig } from '../types.js';
import { assert } from './assert.js';
import { FreeList } from './free-list.js';
import { kSerialMax, kStampMax, kTagHeld, kTagQueued, kTagStaged, numberFreeList, renumberTags, stateOfTag, type TagAccess } from './page-tags.js';
import type { SegmentGeometry } from './segment-validation.js';
import { kPageQueued, type SnapshotGeometry } from './snapshot.js';

/**
 * The state under the fast allocators: the geometry, the free list and its `needSort` staging, and
 * the page states by serial with the stamps of the unchecked dedupe (see `page-tags.ts`). The
 * layers above add the collecting of a give-back's pages (`GiveBackCollector`) and the calls of
 * the contract (`BaseAllocator`).
 *
 * @internal
 */
export abstract class AllocatorState {
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
   */
  protected readonly checks: boolean;
  protected readonly needSort: boolean;
  // For a power-of-two page size the checks find a slot's page by a shift and its offset by a mask
  // (an integer division costs as much as the rest of a per-request check); otherwise pageShift is
  // -1 and pageMask 0.
  protected readonly pageShift: number;
  protected readonly pageMask: number;
  // The geometry the snapshot and segment checks read (internal/snapshot.ts, internal/segment-validation.ts).
  protected readonly geometry: SnapshotGeometry & SegmentGeometry;
  // How the serial renumbering reaches the tags: through tagOf / setTag, which the token allocator overrides.
  private readonly tags: TagAccess = { tagOf: (page) => this.tagOf(page), setTag: (page, value) => this.setTag(page, value) };

  protected readonly freeList: FreeList;
  // staged[0, stagedCount): pages given back under needSort, merged sorted when an allocation runs short.
  protected readonly staged: Int32Array;
  protected stagedCount = 0;
  // Checks off, tag[p] is the stamp of the last call that met page p, so a call dedupes its pages
  // without clearing anything. Checks on, it is page p's serial or negative state (internal/page-tags.ts).
  protected readonly tag: Int32Array;
  private stamp = 0;
  // Checks on, the dedupe of a call: seen[p] === seenStamp once page p was met in it (tags hold serials).
  private seen: Int32Array | null = null;
  private seenStamp = 0;
  /** Serials start again from 1 before the list's last serial passes this (tests lower it). */
  protected readonly serialLimit: number = kSerialMax;
  // Whether a free group is open: give-backs are then queued until its end.
  protected groupOpen = false;

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
    this.geometry = { pageSize: this.pageSize, numPages: this.numPages, checks: this.checks, pageShift: this.pageShift, pageMask: this.pageMask, slotEnd: this.slotEnd };
    const pageIds = this.numPages + 1;
    this.freeList = new FreeList(this.numPages);
    this.staged = new Int32Array(pageIds);
    this.tag = new Int32Array(pageIds);
  }

  // ---- staging --------------------------------------------------------------------------------

  /** Under needSort, given-back pages wait here until an allocation runs short. */
  protected stage(pages: Int32Array, start: number, n: number): void {
    for (let i = 0; i < n; i++) this.staged[this.stagedCount + i] = pages[start + i] as number;
    this.stagedCount += n;
    if (this.checks === true) for (let i = 0; i < n; i++) this.setTag(pages[start + i] as number, kTagStaged);
  }

  /** The engine's `merge_and_sort_free`: the staged pages join the free list, sorted ascending with it. */
  protected mergeStaged(): void {
    if (this.stagedCount === 0) return;
    this.freeList.append(this.staged, 0, this.stagedCount);
    this.stagedCount = 0;
    this.freeList.sortAscending();
    // Sorting moved pages: each takes the serial of its new place.
    if (this.checks === true) {
      numberFreeList(this.freeList, this.tags);
      this.renumberNearLimit();
    }
  }

  // ---- stamps and serials ---------------------------------------------------------------------

  /** Checks off: the next call's stamp; at the limit every stamp is cleared. */
  protected nextStamp(): number {
    if (this.stamp === kStampMax) {
      this.tag.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
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

  /** Page `page`'s state with checks on (`undefined` tag — outside the pool — reads as free). */
  protected stateOf(page: number): number {
    return stateOfTag(page, this.tag[page], this.freeList);
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

  /** Checks on: the `n` pages just put at the front of the list get the serials of their places. */
  protected numberFront(n: number): void {
    const { buf, head, serialBase } = this.freeList;
    if (serialBase + head < 1) {
      // A prepend that found no room moved the list to the far end, and the serials down with it.
      // Rebased in place, the front's serial is 1 again and the list keeps the room it just made
      // (renumber would move it back to the start, and the next such prepend would move it again).
      // Held pages keep their old serials: non-negative, and the list read tells them apart.
      this.freeList.serialBase = 1 - head;
      numberFreeList(this.freeList, this.tags);
      return;
    }
    for (let i = 0; i < n; i++) this.tag[buf[head + i] as number] = serialBase + head + i;
  }

  /** Checks on: serials only grow under appends; before they near the int32 limit they start again from 1 (O(numPages), rare). */
  protected renumberNearLimit(): void {
    if (this.freeList.serialBase + this.freeList.buf.length > this.serialLimit) this.renumber();
  }

  /** Checks on: every tag from the lists (see `renumberTags`). */
  protected renumber(): void {
    renumberTags(this.freeList, this.numPages, this.staged, this.stagedCount, this.tags);
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

  /** Every page's state, for snapshots and invariants. */
  protected pageStates(): Uint8Array {
    const states = new Uint8Array(this.numPages + 1);
    for (let page = 0; page <= this.numPages; page++) states[page] = this.stateOf(page);
    return states;
  }
}
