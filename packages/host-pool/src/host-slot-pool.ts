import { ArgumentError, divExact, divFloor, SlotRangeError, StateError } from '@kvfuzz/allocator-core';
import { kSlotEndMax, resolveHostSlotPoolConfig } from './config.js';
import { HostDoubleAllocError, HostDoubleFreeError } from './errors.js';
import { HostSlotPoolSnapshot } from './host-slot-pool-snapshot.js';
import { assert } from './internal/assert.js';
import { copySlots } from './internal/copy-slots.js';
import { ReleaseList } from './internal/release-list.js';
import { RunNotes } from './internal/run-notes.js';
import { SlotList } from './internal/slot-list.js';
import { UsedBits } from './internal/used-bits.js';
import type { HostPool, HostSlotPoolConfig, HostSlotPoolInspection, ResolvedHostSlotPoolConfig } from './types.js';

/**
 * The host (L2) slot pool of SGLang's HiCache: the latest `HostKVCache` bookkeeping, with the
 * engine's `slot_used` checks, its lazy release list and its contiguous-run preference.
 *
 * Units: every size and index is in logical slots, numbered from 0 (no reserved slot). Without
 * DCP a logical slot is a host token slot; under DCP (`dcpSize` D > 1) logical slot `i` is
 * physical row `i / D` (rounded down) on rank `i % D`, and {@link HostSlotPool.physicalRows}
 * translates a batch for one rank.
 *
 * Invariants (checked by {@link HostSlotPool.verifyInvariants} at quiet points):
 * 1. the free list and the pending chunks hold each slot at most once between them, every one in
 *    `[0, size)`, and `availableSize()` is their total length;
 * 2. with checks on, `slotUsed[s] = 1` exactly when slot `s` is in neither, so the number of used
 *    slots is `size − availableSize()`;
 * 3. `free` never touches the free list: given-back chunks wait, in release order, until an
 *    `alloc` finds the free list short and appends them to its back;
 * 4. `alloc(n)` hands out the first run of whole pages with consecutive ids if the list has one,
 *    else its first `n` entries, and keeps the order of what stays.
 *
 * Methods are protected rather than private so that `fuzz/mutants` can plant a bug in one step
 * by overriding one of them (the sizing rule, the run search, the used check on alloc or on free).
 *
 * The `slot_used` flags are a bit per slot (`UsedBits`), checked and flipped a run of consecutive
 * slots at a time, a word (32 slots) per operation. The runs are found (`RunNotes`) by a scan of the
 * call's slots: free's copy in the release list, a first-fit hand-out in the free list (or a copy); a
 * run the search found needs no scan, the search having compared each of its entries with the one
 * before. One JavaScript path serves every pool size, so the fuzz models' small pools run the same
 * code as the bench's large ones. A refused call puts back the marks it made before it throws.
 */
export class HostSlotPool implements HostPool {
  readonly config: ResolvedHostSlotPoolConfig;
  /** Logical slots in the pool, `pageCount × pageSize`: slot ids `0 .. size − 1`. */
  readonly size: number;
  /** The host page in logical slots (under DCP the widened page); `alloc` takes multiples of it. */
  readonly pageSize: number;
  /** Host pages in the pool: the requested size rounded down to whole pages, plus one. */
  readonly pageCount: number;
  /** DCP world size (1 without DCP). */
  readonly dcpSize: number;
  /** The physical (kernel) page in rows per rank: `pageSize / dcpSize`. */
  readonly physicalPageSize: number;
  /** Physical rows per rank: `size / dcpSize`. */
  readonly physicalSize: number;
  /** The engine's `logical_size`: the same as {@link HostSlotPool.size}, named for DCP callers. */
  readonly logicalSize: number;
  /** Tested as `=== true` on the hot paths (see allocator-core's `BaseAllocator.checks`: a bare truthiness test of a boolean field is a chain of compares that checks-on walks to its end). */
  protected readonly checks: boolean;

  // freeSlots: the free list, handed out from the front; after reuse its order is the history's.
  protected readonly freeSlots: SlotList;
  // pending: chunks given back by free(), in release order, not yet in the free list.
  protected readonly pending: ReleaseList;
  // slotUsed: a bit per slot, set while the slot is allocated (the engine's slot_used); null when checks are off.
  // A slot named twice in one call meets its own mark the second time, so no dedupe array is needed.
  protected readonly slotUsed: UsedBits | null;
  // notes: the runs of consecutive slots of the current call, for the checks; null when checks are off.
  protected readonly notes: RunNotes | null;
  // provenRun: the list offset of the run the last run search found, each entry of it compared with
  // the one before; −1 when it found none (alloc resets it before the search, so an override's result
  // never passes for a proven run).
  protected provenRun = -1;
  // The run search's state between the free list and the pending chunks: where the current run
  // starts in the list (−1 for none) and the entry before.
  private searchRunStart = -1;
  private searchPrev = -2;

  /** @throws ConfigError naming the bad value (see {@link resolveHostSlotPoolConfig}). */
  constructor(config: HostSlotPoolConfig) {
    this.config = resolveHostSlotPoolConfig(config);
    this.pageSize = this.config.pageSize;
    this.dcpSize = this.config.dcpSize;
    this.checks = this.config.checks;
    this.pageCount = this.pageCountFor(this.config.sizeTokens, this.pageSize);
    this.size = this.pageCount * this.pageSize;
    assert(Number.isInteger(this.pageCount), `pageCount ${this.pageCount} is not an integer`);
    assert(this.pageCount >= 0, `pageCount ${this.pageCount} is negative`);
    assert(this.size <= kSlotEndMax, `size ${this.size} exceeds ${kSlotEndMax}: slot ids would not be exact`);
    this.physicalPageSize = this.config.physicalPageSize;
    this.physicalSize = divExact(this.size, this.dcpSize);
    this.logicalSize = this.size;
    this.freeSlots = new SlotList(this.size);
    this.notes = this.checks ? new RunNotes(this.size) : null;
    this.slotUsed = this.checks ? new UsedBits(this.size) : null;
    this.pending = new ReleaseList(this.size);
    this.clear();
  }

  /** Slots that can be handed out now: the free list plus the pending chunks. */
  availableSize(): number {
    return this.freeSlots.count + this.pending.count;
  }

  /**
   * `n` slots. When the free list is shorter than `n`, the pending chunks are appended to its back
   * first (in release order). Then the first run of whole pages with consecutive ids is taken if
   * there is one, else the first `n` entries.
   *
   * @param n - slots wanted; a multiple of the page size (logical slots).
   * @returns the slots, or `null` when `n > availableSize()` (nothing changes then); an empty
   *   array for 0.
   * @throws ArgumentError when `n` is negative, not an integer, or not a page multiple ("The
   *   requested size should be a multiple of the page size.").
   * @throws HostDoubleAllocError (checks on) naming the slots about to be handed out that are
   *   already allocated, before anything changes.
   */
  alloc(n: number): Int32Array | null {
    if (!Number.isInteger(n) || n < 0 || n % this.pageSize !== 0) this.refuseAllocSize(n);
    if (n === 0) return new Int32Array(0);
    if (n > this.availableSize()) return null;
    const merge = n > this.freeSlots.count;
    const listLength = merge ? this.availableSize() : this.freeSlots.count;
    this.provenRun = -1;
    const start = this.findRunStart(n, listLength);
    if (!(Number.isInteger(start) && start >= 0 && start + n <= listLength)) this.refuseRunStart(start, n, listLength);
    const out = new Int32Array(n);
    // Checks on, the slots are flagged before the lists change (and may be copied out then).
    const copied = this.checks === true && this.flagHandOut(start, n, out);
    if (merge) this.mergePending();
    if (copied) this.freeSlots.removeRange(start, n);
    else this.freeSlots.takeRange(start, n, out);
    return out;
  }

  /**
   * Gives slots back. The chunk (copied) waits in the release list; the free list is untouched.
   * There is no page-alignment rule on free.
   *
   * @param indices - logical slots, each allocated once per naming.
   * @returns how many slots were given back: `indices.length` (0 for an empty call, which records nothing).
   * @throws SlotRangeError (checks on) naming the slots outside `[0, size)` or not integers.
   * @throws HostDoubleFreeError (checks on) naming every slot that is not allocated, counting a
   *   slot named twice in the call as freed twice; before anything changes.
   */
  free(indices: ArrayLike<number>): number {
    const n = indices.length;
    if (n === 0) return 0;
    if (this.checks !== true) {
      this.pending.push(indices);
      return n;
    }
    // More slots than are allocated name one that is not, or one twice: refused before the copy,
    // which then always fits the release list (in a checked pool, where the run scan reads it).
    // Below that bound the count is an int32: a typed array's length reaches V8 as a 64-bit value,
    // and it made the run loops' lengths floats, converted back and checked every run (seen in
    // --print-opt-code).
    if (n > this.size - this.availableSize()) this.refuseFree(indices, 0);
    const count = n | 0;
    // Only integer arrays guarantee integer slots; a plain array is checked slot by slot first.
    if (!(indices instanceof Int32Array)) this.checkSlots(indices);
    this.pending.stage(indices, count, this.notes as RunNotes);
    this.markFreed(indices);
    this.pending.commit(count);
    if (this.availableSize() > this.size) {
      assert(false, `${this.availableSize()} slots available of ${this.size}: a slot was given back twice`);
    }
    return n;
  }

  /** Every slot free (`0 .. size − 1` in order), nothing pending, nothing used. */
  clear(): void {
    this.freeSlots.fillAscending(this.size);
    this.pending.clear();
    if (this.slotUsed !== null) this.slotUsed.clearAll();
  }

  /** A copy of the free list, the pending chunks and (checks on) the `slot_used` flags, for {@link restoreState}. */
  backupState(): HostSlotPoolSnapshot {
    const pending = this.pending;
    return new HostSlotPoolSnapshot(
      this.size,
      this.pageSize,
      this.checks,
      this.freeSlots.toArray(),
      pending.slots.slice(0, pending.count),
      pending.ends.slice(0, pending.chunkCount),
      this.slotUsed === null ? null : this.slotUsed.words.slice(),
    );
  }

  /**
   * Puts back the state of a {@link backupState} snapshot: slots handed out since are free (or
   * pending) again, frees since are undone.
   *
   * @throws StateError when `state` is not a snapshot, or one of a pool with another size, page size
   *   or checks setting; before anything changes.
   */
  restoreState(state: unknown): void {
    if (!(state instanceof HostSlotPoolSnapshot)) {
      throw new StateError(`restoreState was given ${typeof state === 'object' && state !== null ? 'an object' : String(state)} that backupState did not return`);
    }
    if (state.size !== this.size || state.pageSize !== this.pageSize || state.checks !== this.checks) {
      throw new StateError(
        `restoreState: snapshot of ${state.size} slots, page size ${state.pageSize}, checks ${state.checks ? 'on' : 'off'} ` +
          `does not fit a pool of ${this.size} slots, page size ${this.pageSize}, checks ${this.checks ? 'on' : 'off'}`,
      );
    }
    this.freeSlots.assign(state.free);
    this.pending.assign(state.pendingSlots, state.pendingEnds);
    if (this.slotUsed !== null && state.used !== null) this.slotUsed.assign(state.used);
  }

  /**
   * The engine's DCP kernel translation for one rank: keeps the logical slots with
   * `slot % dcpSize == rank`, in order, as physical rows `slot / dcpSize` (rounded down).
   *
   * @param indices - logical slots: runs of whole widened pages.
   * @param rank - the rank, in `[0, dcpSize)`.
   * @returns the rank's physical rows.
   * @throws ArgumentError for a bad rank, or when the rank's share is not exactly
   *   `indices.length / dcpSize` (a length that is not a multiple of `dcpSize`, or residue classes
   *   not equally represented): "HiCache DCP translation expects runs of whole widened pages".
   * @throws SlotRangeError naming the slots outside `[0, size)` or not integers.
   */
  physicalRows(indices: ArrayLike<number>, rank: number): Int32Array {
    const d = this.dcpSize;
    if (!Number.isInteger(rank) || rank < 0 || rank >= d) throw new ArgumentError(`rank ${String(rank)} is outside [0, ${d})`);
    this.checkSlots(indices);
    const n = indices.length;
    let owned = 0;
    for (let i = 0; i < n; i++) if ((indices[i] as number) % d === rank) owned++;
    if (owned * d !== n) {
      throw new ArgumentError(
        `HiCache DCP translation expects runs of whole widened pages (every residue class equally represented); ` +
          `got ${n} logical slots -> ${owned} owned rows on rank ${rank} with dcp_size=${d}.`,
      );
    }
    const rows = new Int32Array(owned);
    let k = 0;
    for (let i = 0; i < n; i++) {
      const slot = indices[i] as number;
      if (slot % d === rank) rows[k++] = divFloor(slot, d);
    }
    return rows;
  }

  /** The free list and the pending chunks, as copies (for tests and exact comparison). */
  inspect(): HostSlotPoolInspection {
    return { free: this.freeSlots.toArray(), pending: this.pending.chunks() };
  }

  /**
   * Whole-structure check for quiet points (after a model command, at drain); O(size).
   *
   * @throws InvariantError naming the first broken invariant.
   */
  verifyInvariants(): void {
    const listed = new Uint8Array(this.size);
    const mark = (slot: number, list: string): void => {
      assert(slot >= 0 && slot < this.size, `${list} holds slot ${slot}, outside [0, ${this.size})`);
      assert(listed[slot] === 0, `slot ${slot} appears twice in the free list and the pending chunks`);
      listed[slot] = 1;
    };
    for (let i = 0; i < this.freeSlots.count; i++) mark(this.freeSlots.at(i), 'the free list');
    for (let i = 0; i < this.pending.count; i++) mark(this.pending.slots[i] as number, 'the pending chunks');
    if (this.slotUsed === null) return;
    let usedCount = 0;
    for (let slot = 0; slot < this.size; slot++) {
      const used = this.slotUsed.has(slot);
      assert(!used || listed[slot] === 0, `slot ${slot} is allocated but sits in the free list or the pending chunks`);
      if (used) usedCount++;
    }
    for (let slot = this.size; slot < 32 * this.slotUsed.words.length; slot++) {
      // `has` reads every slot past the pool as unflagged, so the bit itself is read here.
      assert(((this.slotUsed.words[slot >>> 5] as number) & (1 << (slot & 31))) === 0, `slotUsed has bit ${slot} set, past the pool's ${this.size} slots`);
    }
    assert(
      usedCount === this.size - this.availableSize(),
      `${usedCount} slots are used, but size ${this.size} − availableSize ${this.availableSize()} = ${this.size - this.availableSize()}`,
    );
  }

  // ---- hooks a planted mutant overrides ------------------------------------------------------

  /** The engine's sizing: `floor(sizeTokens / pageSize) + 1` pages, one extra even when aligned. */
  protected pageCountFor(sizeTokens: number, pageSize: number): number {
    return divFloor(sizeTokens, pageSize) + 1;
  }

  /**
   * Where `alloc(n)` takes its slots from, as an offset into the first `listLength` entries of the
   * free list followed by the pending chunks: the first run of `n` consecutive ids that starts on
   * a page boundary of the list (an offset that is a multiple of the page size) with a
   * page-aligned slot; 0 (first fit) when there is none.
   *
   * The run it found is recorded in {@link HostSlotPool.provenRun}: the checks flag it as one run
   * (each entry was compared with the one before), where a first-fit hand-out is scanned for
   * runs. An override that does not record its run gets the scan.
   */
  protected findRunStart(n: number, listLength: number): number {
    const free = this.freeSlots;
    // listLength is the free list's length, or more when the pending chunks join it.
    const inFree = free.count;
    this.searchRunStart = -1;
    this.searchPrev = -2;
    let start = this.searchRuns(free.buf, free.head, inFree, 0, n);
    if (start < 0 && listLength > inFree) start = this.searchRuns(this.pending.slots, 0, listLength - inFree, inFree, n);
    if (start < 0) return 0;
    this.provenRun = start;
    return start;
  }

  /**
   * The run search over one piece of the list, `buf[from, from + count)`, whose first entry is
   * list entry `offset`; the search's state on entry and exit is in `searchRunStart` / `searchPrev`.
   * The two pieces are searched apart, each reading its own array, because one loop over
   * `listEntry` (a branch and a second array per entry) made the unchecked alloc/free cycle slower.
   *
   * @returns the list offset of the run of `n`, or −1 when the piece ends first.
   */
  private searchRuns(buf: Int32Array, from: number, count: number, offset: number, n: number): number {
    const ps = this.pageSize;
    let runStart = this.searchRunStart;
    let prev = this.searchPrev;
    for (let j = 0; j < count; j++) {
      const slot = buf[from + j] as number;
      const i = offset + j;
      if (runStart >= 0 && slot === prev + 1) {
        prev = slot;
        if (i - runStart + 1 === n) return runStart;
        continue;
      }
      // A run starts only at a whole page: a page boundary of the list holding a page-aligned slot.
      runStart = i % ps === 0 && slot % ps === 0 ? i : -1;
      prev = slot;
      if (runStart >= 0 && n === 1) return runStart;
    }
    this.searchRunStart = runStart;
    this.searchPrev = prev;
    return -1;
  }

  /**
   * Checks on: entries `[start, start + n)` of the free list followed by the pending chunks go
   * from unused to used, each once. A slot already used — or met twice — puts back the marks made
   * so far, and `HostDoubleAllocError` names every such slot.
   */
  protected markHandOut(start: number, n: number): void {
    const { firsts, starts, runs } = this.notes as RunNotes;
    const i = (this.slotUsed as UsedBits).setRuns(firsts, starts, runs, n);
    if (i < n) this.refuseHandOut(start, start + i, n);
  }

  /**
   * Checks on: every naming goes from used to unused, run by run as the scan noted them; a slot
   * named twice meets its own mark and is freed twice. A slot outside the pool, unused or named
   * twice puts back the marks made so far; then `SlotRangeError` or `HostDoubleFreeError` names
   * every such slot.
   */
  protected markFreed(indices: ArrayLike<number>): void {
    // An int32 count: free has refused a call of more slots than are allocated.
    const n = indices.length | 0;
    const { firsts, starts, runs } = this.notes as RunNotes;
    const i = (this.slotUsed as UsedBits).clearRuns(firsts, starts, runs, n);
    if (i < n) this.refuseFree(indices, i);
  }

  // ---- slow paths ----------------------------------------------------------------------------
  // Out of line, so that the messages' template literals do not count against the bytecode V8
  // inlines into alloc: with them inline, the checked alloc's larger call tree left the run search
  // out of line in the checked variant only (see allocator-core's internal/argument-refusals.ts).

  /** The ArgumentError for an `alloc` size that is negative, not an integer or not a page multiple. */
  private refuseAllocSize(n: number): never {
    if (!Number.isInteger(n) || n < 0) throw new ArgumentError(`alloc size ${String(n)} is not a non-negative integer`);
    throw new ArgumentError(`The requested size should be a multiple of the page size. Got alloc size ${n}, page size ${this.pageSize}.`);
  }

  /** The run search (or an override of it) answered a start outside the list. */
  private refuseRunStart(start: number, n: number, listLength: number): never {
    assert(Number.isInteger(start), `run start ${start} is not an integer`);
    assert(false, `run [${start}, ${start + n}) lies outside the list of ${listLength}`);
  }

  /** A refused hand-out: entries `[start, marked)` go back to unused; every bad entry is named. */
  private refuseHandOut(start: number, marked: number, n: number): never {
    const used = this.slotUsed as UsedBits;
    for (let i = start; i < marked; i++) used.unset(this.listEntry(i));
    const met = new Set<number>();
    const bad: number[] = [];
    for (let i = start; i < start + n; i++) {
      const slot = this.listEntry(i);
      if (used.has(slot) || met.has(slot)) bad.push(slot);
      met.add(slot);
    }
    assert(bad.length > 0, 'a hand-out was refused but every slot is unused once');
    throw new HostDoubleAllocError(bad);
  }

  /** A refused free: namings `[0, marked)` go back to used; every bad slot or naming is named. */
  private refuseFree(indices: ArrayLike<number>, marked: number): never {
    const used = this.slotUsed as UsedBits;
    for (let i = 0; i < marked; i++) used.set(indices[i] as number);
    this.checkSlots(indices);
    const met = new Set<number>();
    const bad: number[] = [];
    for (let i = 0; i < indices.length; i++) {
      const slot = indices[i] as number;
      if (!used.has(slot) || met.has(slot)) bad.push(slot);
      met.add(slot);
    }
    assert(bad.length > 0, 'a free was refused but every slot is used once');
    throw new HostDoubleFreeError(bad);
  }

  // ---- shared mechanics ------------------------------------------------------------------------

  /**
   * Checks on: flags the hand-out of entries `[start, start + n)` of the free list followed by the
   * pending chunks, the lists unchanged. A run the search found is one run; any other hand-out is
   * scanned for runs: where it lies when that is the free list, else in a copy (`copyEntries`).
   *
   * @returns whether `out` holds the slots now.
   */
  private flagHandOut(start: number, n: number, out: Int32Array): boolean {
    const notes = this.notes as RunNotes;
    const free = this.freeSlots;
    let copied = false;
    if (this.provenRun === start) notes.noteOneRun(this.listEntry(start));
    else if (start + n <= free.count) notes.scan(free.buf, free.head + start, n);
    else {
      this.copyEntries(start, n, out);
      copied = true;
    }
    this.markHandOut(start, n);
    return copied;
  }

  /**
   * Checks on: entries `[start, start + n)` of the free list followed by the pending chunks into
   * `out`, without merging them, and notes their runs.
   */
  protected copyEntries(start: number, n: number, out: Int32Array): void {
    const free = this.freeSlots;
    // The range as two contiguous pieces: in the free list, then in the pending chunks.
    const inFree = Math.max(0, Math.min(start + n, free.count) - start);
    const from = free.head + start;
    copySlots(free.buf, from, out, 0, inFree);
    copySlots(this.pending.slots, start + inFree - free.count, out, inFree, n - inFree);
    (this.notes as RunNotes).scan(out, 0, n);
  }

  /** Entry `i` of the free list followed by the pending chunks, without merging them. */
  protected listEntry(i: number): number {
    const free = this.freeSlots;
    return i < free.count ? free.at(i) : (this.pending.slots[i - free.count] as number);
  }

  /** The pending chunks go to the back of the free list, in release order. */
  protected mergePending(): void {
    if (this.pending.count === 0) return;
    this.freeSlots.append(this.pending.slots, 0, this.pending.count);
    this.pending.clear();
  }

  /** Every slot must be an integer in `[0, size)`. */
  protected checkSlots(indices: ArrayLike<number>): void {
    let bad: number[] | null = null;
    for (let i = 0; i < indices.length; i++) {
      const slot = indices[i] as number;
      if (!Number.isInteger(slot) || slot < 0 || slot >= this.size) (bad ??= []).push(slot);
    }
    if (bad !== null) throw new SlotRangeError(bad, this.size);
  }
}
