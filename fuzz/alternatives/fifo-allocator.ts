/**
 * An alternative implementation of kvfuzz's allocator contract, written from the contract alone
 * (CONTRACT.md): free pages wait in a FIFO queue, pages given back join
 * its **back** and allocations take from its front, so the page freed longest ago is reused first.
 *
 * The reference reuses LIFO at page size ≥ 2 (freed pages are handed out next); this one gives
 * `pnpm validate` (contract mode) a correct implementation whose reuse order is the opposite.
 * `needSort` is accepted and ignored: contract mode accepts any page choice, and a queue that is
 * re-sorted would no longer be FIFO.
 *
 * @packageDocumentation
 */
import type { AllocatorConfig, AllocatorProvider, DecodeBatch, ExtendBatch, FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';

/** Largest pool accepted: every slot id must stay exact in the `Int32Array` results. */
export const kSizeTokensMax = 2 ** 30;

// pageState values. Page 0 is reserved for the padded tokens' dummy writes and never leaves kReserved.
const kFree = 0;
const kHeld = 1;
/** Given back inside the open free group; joins the queue when the group ends. */
const kQueued = 2;
const kReserved = 3;

// ---- errors ------------------------------------------------------------------------------------

/** Base class of this allocator's errors; `name` is stable so it survives the JSON-lines protocol. */
export class FifoAllocatorError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** Bad configuration, raised before anything is built. */
export class ConfigError extends FifoAllocatorError {
  constructor(message: string) {
    super('ConfigError', message);
  }
}

/** An argument that is rejected whether or not checks are on (sizes, lengths, `seq < prefix`). */
export class ArgumentError extends FifoAllocatorError {
  constructor(message: string) {
    super('ArgumentError', message);
  }
}

/** A page given back that is not held: page 0, a free page, or one already given back in the open group. */
export class DoubleFreeError extends FifoAllocatorError {
  constructor(pages: readonly number[]) {
    super('DoubleFreeError', `pages not currently allocated: [${pages.join(', ')}]`);
  }
}

/** A slot outside the pool or not an integer (checks on). */
export class SlotRangeError extends FifoAllocatorError {
  constructor(slots: readonly number[], slotEnd: number) {
    super('SlotRangeError', `slots outside [0, ${slotEnd}): [${slots.join(', ')}]`);
  }
}

/** A `freeSegments` call that is not page-disjoint and aligned, or breaks the row page structure. */
export class SegmentError extends FifoAllocatorError {
  constructor(message: string) {
    super('SegmentError', message);
  }
}

/** A `lastLoc` that does not fit its prefix (checks on). */
export class LastLocError extends FifoAllocatorError {
  constructor(message: string) {
    super('LastLocError', message);
  }
}

/** Free-group misuse: nested begin, end without begin, a snapshot taken or restored inside a group. */
export class FreeGroupError extends FifoAllocatorError {
  constructor(message: string) {
    super('FreeGroupError', message);
  }
}

/** `restoreState` was given something that is not this allocator's snapshot. */
export class StateError extends FifoAllocatorError {
  constructor(message: string) {
    super('StateError', message);
  }
}

/** One of this file's own invariants broke: a bug here, never a caller error. */
export class InvariantError extends FifoAllocatorError {
  constructor(message: string) {
    super('InvariantError', message);
  }
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new InvariantError(`Invariant broken: ${message}`);
}

// ---- geometry ----------------------------------------------------------------------------------

function positiveInteger(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new ConfigError(`${field} ${String(value)} is not a positive integer`);
  }
  return value;
}

function flag(field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(`${field} ${String(value)} is not a boolean`);
  return value;
}

/** `a / b` rounded up, for non-negative integers. */
function divCeil(a: number, b: number): number {
  return Math.ceil(a / b);
}

/** The snapshot `backupState` returns: the queue, front first. Held pages are the rest (no group is open). */
interface FifoSnapshot {
  readonly kind: 'kvfuzz.fifo-queue/state';
  readonly pageSize: number;
  readonly numPages: number;
  readonly queue: Int32Array;
}

// ---- the allocator -----------------------------------------------------------------------------

/**
 * The FIFO-queue allocator.
 *
 * Invariants (checked by {@link FifoAllocator.verifyInvariants}):
 * 1. the queue holds exactly the pages whose state is kFree, each once, never page 0;
 * 2. `pending` holds exactly the pages whose state is kQueued, each once, and only while a group is open;
 * 3. free + queued + held = numPages, so the ring (capacity numPages) never overflows.
 */
export class FifoAllocator implements PageAllocator {
  readonly pageSize: number;
  readonly numPages: number;
  /** One past the last slot: `(numPages + 1) * pageSize`. */
  readonly slotEnd: number;
  private readonly checks: boolean;

  // ring[(head + i) % numPages] for i in [0, freeCount): the free pages, front (reused first) to back.
  private readonly ring: Int32Array;
  private head = 0;
  private freeCount = 0;
  // pageState[p]: kFree / kHeld / kQueued / kReserved.
  private readonly pageState: Uint8Array;
  // pending[0, pendingCount): pages given back in the open group, in the order given back.
  private readonly pending: Int32Array;
  private pendingCount = 0;
  private groupOpen = false;
  // mark[p] = 1 while page p is among the current call's pages; reset before the call returns.
  private readonly mark: Uint8Array;
  // callPages[0, k): the distinct pages of the current free call, in the order met.
  private readonly callPages: Int32Array;

  /**
   * @param config - pool size and geometry; see `AllocatorConfig`.
   * @throws ConfigError naming the bad value.
   */
  constructor(config: AllocatorConfig) {
    if (typeof config !== 'object' || config === null) throw new ConfigError(`config ${String(config)} is not an object`);
    const sizeTokens = positiveInteger('sizeTokens', config.sizeTokens);
    const kernelPageSize = positiveInteger('kernelPageSize', config.kernelPageSize ?? 1);
    const dcpSize = positiveInteger('dcpSize', config.dcpSize ?? 1);
    flag('needSort', config.needSort, false);
    this.checks = flag('checks', config.checks, true);
    // A power of two has exactly one bit set.
    if ((dcpSize & (dcpSize - 1)) !== 0) throw new ConfigError(`dcpSize ${dcpSize} is not a power of two`);
    if (sizeTokens > kSizeTokensMax) throw new ConfigError(`sizeTokens ${sizeTokens} exceeds the maximum ${kSizeTokensMax}`);
    this.pageSize = kernelPageSize * dcpSize;
    if (sizeTokens % this.pageSize !== 0) {
      throw new ConfigError(`sizeTokens ${sizeTokens} is not a multiple of the page size ${this.pageSize} (kernelPageSize ${kernelPageSize} × dcpSize ${dcpSize})`);
    }
    this.numPages = sizeTokens / this.pageSize;
    this.slotEnd = (this.numPages + 1) * this.pageSize;
    this.ring = new Int32Array(this.numPages);
    this.pageState = new Uint8Array(this.numPages + 1);
    this.pending = new Int32Array(this.numPages);
    this.mark = new Uint8Array(this.numPages + 1);
    this.callPages = new Int32Array(this.numPages + 1);
    this.clear();
  }

  /** Free slots: queued-for-reuse pages times the page size (pages given back in an open group are not free yet). */
  availableSize(): number {
    return this.freeCount * this.pageSize;
  }

  /**
   * Whole pages for `needSize` slots from the front of the queue.
   *
   * @param needSize - slots wanted (a multiple of the page size).
   * @returns the slots of each page in queue order, or `null` when fewer pages are free.
   * @throws ArgumentError when `needSize` is negative, not an integer or not a page multiple.
   */
  alloc(needSize: number): Int32Array | null {
    if (!Number.isInteger(needSize) || needSize < 0) throw new ArgumentError(`alloc size ${String(needSize)} is not a non-negative integer`);
    if (needSize % this.pageSize !== 0) throw new ArgumentError(`alloc size ${needSize} is not a multiple of the page size ${this.pageSize}`);
    const pageCount = needSize / this.pageSize;
    if (pageCount > this.freeCount) return null;
    const ps = this.pageSize;
    const out = new Int32Array(needSize);
    for (let j = 0; j < pageCount; j++) {
      const firstSlot = this.popFront() * ps;
      for (let offset = 0; offset < ps; offset++) out[j * ps + offset] = firstSlot + offset;
    }
    return out;
  }

  /**
   * The `Σ(seq − prefix)` new slots of an extend batch, request after request. Positions up to
   * the end of `lastLoc`'s page follow `lastLoc`; each later page block of a row opens the page
   * at the front of the queue.
   *
   * @throws ArgumentError when the arrays differ in length, a length is not a non-negative integer, `seq < prefix`, or a `lastLoc` is not an integer.
   * @throws LastLocError (checks on) when a `lastLoc` does not fit its prefix or lies in a page that is not held.
   */
  allocExtend(batch: ExtendBatch): Int32Array | null {
    const { prefixLens, seqLens, lastLoc } = batch;
    const n = prefixLens.length;
    if (seqLens.length !== n || lastLoc.length !== n) {
      throw new ArgumentError(`extend batch arrays differ in length: prefixLens ${n}, seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`);
    }
    const ps = this.pageSize;
    let tokenCount = 0;
    let pageCount = 0;
    for (let i = 0; i < n; i++) {
      const pre = prefixLens[i] as number;
      const seq = seqLens[i] as number;
      if (!Number.isInteger(pre) || pre < 0) throw new ArgumentError(`request ${i}: prefixLens ${String(pre)} is not a non-negative integer`);
      if (!Number.isInteger(seq) || seq < 0) throw new ArgumentError(`request ${i}: seqLens ${String(seq)} is not a non-negative integer`);
      if (seq < pre) throw new ArgumentError(`request ${i}: seqLens ${seq} < prefixLens ${pre}`);
      if (!Number.isInteger(lastLoc[i])) throw new ArgumentError(`request ${i}: lastLoc ${String(lastLoc[i])} is not an integer`);
      tokenCount += seq - pre;
      pageCount += divCeil(seq, ps) - divCeil(pre, ps);
    }
    if (this.checks) {
      for (let i = 0; i < n; i++) this.checkLastLoc(i, prefixLens[i] as number, lastLoc[i] as number, 'prefixLens');
    }
    if (pageCount > this.freeCount) return null;
    const out = new Int32Array(tokenCount);
    const freeBefore = this.freeCount;
    let outPos = 0;
    for (let i = 0; i < n; i++) {
      const pre = prefixLens[i] as number;
      const seq = seqLens[i] as number;
      let slot = (lastLoc[i] as number) + 1;
      for (let pos = pre; pos < seq; pos++) {
        // A page-aligned position opens a new page; any other continues the previous slot's page.
        if (pos % ps === 0) slot = this.popFront() * ps;
        out[outPos++] = slot++;
      }
    }
    assert(outPos === tokenCount, `extend wrote ${outPos} slots, expected ${tokenCount}`);
    assert(freeBefore - this.freeCount === pageCount, `extend took ${freeBefore - this.freeCount} pages, counted ${pageCount}`);
    return out;
  }

  /**
   * One new slot per request: row position `seq − 1` opens the page at the front of the queue
   * (offset 0) when it is page-aligned, else it follows `lastLoc`.
   *
   * @throws ArgumentError when the arrays differ in length, a length is not an integer ≥ 1, or a `lastLoc` is not an integer.
   * @throws LastLocError (checks on) when a `lastLoc` does not fit `seq − 1` or lies in a page that is not held.
   */
  allocDecode(batch: DecodeBatch): Int32Array | null {
    const { seqLens, lastLoc } = batch;
    const n = seqLens.length;
    if (lastLoc.length !== n) throw new ArgumentError(`decode batch arrays differ in length: seqLens ${n}, lastLoc ${lastLoc.length}`);
    const ps = this.pageSize;
    let pageCount = 0;
    for (let i = 0; i < n; i++) {
      const seq = seqLens[i] as number;
      if (!Number.isInteger(seq) || seq < 1) throw new ArgumentError(`request ${i}: seqLens ${String(seq)} is not an integer >= 1`);
      if (!Number.isInteger(lastLoc[i])) throw new ArgumentError(`request ${i}: lastLoc ${String(lastLoc[i])} is not an integer`);
      if ((seq - 1) % ps === 0) pageCount++;
    }
    if (this.checks) {
      for (let i = 0; i < n; i++) this.checkLastLoc(i, (seqLens[i] as number) - 1, lastLoc[i] as number, 'seqLens - 1');
    }
    if (pageCount > this.freeCount) return null;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const pos = (seqLens[i] as number) - 1;
      out[i] = pos % ps === 0 ? this.popFront() * ps : (lastLoc[i] as number) + 1;
    }
    return out;
  }

  /**
   * Gives back the whole page of every slot, each page once per call, to the back of the queue;
   * inside a free group the pages wait until the group ends.
   *
   * @throws SlotRangeError (checks on) for a slot that is not an integer in `[0, slotEnd)`.
   * @throws DoubleFreeError (checks on) naming every page that is not held (page 0, free, or already given back in the open group).
   */
  free(indices: ArrayLike<number>): void {
    const n = indices.length;
    if (n === 0) return;
    if (this.checks) this.checkSlots(indices);
    const ps = this.pageSize;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const page = Math.floor((indices[i] as number) / ps);
      // With checks off a bad slot is undefined behaviour; skipping it keeps the arrays in range.
      if (!(page >= 0 && page <= this.numPages) || this.mark[page] === 1) continue;
      this.mark[page] = 1;
      this.callPages[k++] = page;
    }
    for (let j = 0; j < k; j++) this.mark[this.callPages[j] as number] = 0;
    if (this.checks) {
      let bad: number[] | null = null;
      for (let j = 0; j < k; j++) {
        const page = this.callPages[j] as number;
        if (this.pageState[page] !== kHeld) (bad ??= []).push(page);
      }
      if (bad !== null) throw new DoubleFreeError(bad);
    }
    for (let j = 0; j < k; j++) this.giveBack(this.callPages[j] as number);
  }

  /**
   * Gives back page-disjoint, page-aligned row segments, segment after segment, page block after
   * page block. Every segment is validated before any page is released.
   *
   * @throws SegmentError when a start is not a page-aligned non-negative integer or a segment does not start in a page after the previous one's last page.
   * @throws SlotRangeError (checks on) for a slot outside the pool.
   * @throws SegmentError (checks on) when a segment's slots break the row page structure.
   * @throws DoubleFreeError (checks on) naming every page that is not held or appears twice.
   */
  freeSegments(segments: readonly FreeSegment[]): void {
    const ps = this.pageSize;
    let prevEnd = -1;
    for (const segment of segments) {
      const start = segment.startPos;
      const length = segment.indices.length;
      if (length === 0) continue;
      if (!Number.isInteger(start) || start < 0) throw new SegmentError(`segment start ${String(start)} is not a non-negative integer`);
      // Disjointness before alignment: a seam that meets inside a page reads "shares a page", as in the protocol's worked exchange.
      if (prevEnd >= 0 && Math.floor(start / ps) <= Math.floor((prevEnd - 1) / ps)) {
        throw new SegmentError(`segment at ${start} shares a page with the one ending at ${prevEnd} (page_size ${ps})`);
      }
      if (start % ps !== 0) throw new SegmentError(`segment start ${start} is not page-aligned (page_size ${ps})`);
      prevEnd = start + length;
    }
    if (this.checks) this.checkSegments(segments);
    for (const segment of segments) {
      const { indices } = segment;
      // The row page structure makes every ps-th slot a representative of its page block.
      for (let i = 0; i < indices.length; i += ps) {
        const page = Math.floor((indices[i] as number) / ps);
        if (page >= 1 && page <= this.numPages) this.giveBack(page);
      }
    }
  }

  /** @throws FreeGroupError when a group is already open (groups do not nest). */
  freeGroupBegin(): void {
    if (this.groupOpen) throw new FreeGroupError('free groups cannot be nested');
    this.groupOpen = true;
    this.pendingCount = 0;
  }

  /**
   * Moves every page given back since the matching {@link FifoAllocator.freeGroupBegin} to the
   * back of the queue, in the order given back.
   *
   * @throws FreeGroupError when no group is open.
   */
  freeGroupEnd(): void {
    if (!this.groupOpen) throw new FreeGroupError('freeGroupEnd without a matching freeGroupBegin');
    this.groupOpen = false;
    for (let j = 0; j < this.pendingCount; j++) this.pushBack(this.pending[j] as number);
    this.pendingCount = 0;
  }

  /**
   * A deep copy of the queue; reusable for any number of restores.
   *
   * @throws FreeGroupError inside an open free group (pending pages have no snapshot form).
   */
  backupState(): unknown {
    if (this.groupOpen) throw new FreeGroupError('backupState inside an open free group');
    const queue = new Int32Array(this.freeCount);
    for (let i = 0; i < this.freeCount; i++) queue[i] = this.ring[(this.head + i) % this.numPages] as number;
    const snapshot: FifoSnapshot = { kind: 'kvfuzz.fifo-queue/state', pageSize: this.pageSize, numPages: this.numPages, queue };
    return Object.freeze(snapshot);
  }

  /**
   * Returns to a snapshot: pages handed out since are free again, frees since are undone, and
   * the queue order is the one at backup.
   *
   * @throws StateError when `state` is not a snapshot of this geometry.
   * @throws FreeGroupError inside an open free group.
   */
  restoreState(state: unknown): void {
    const s = state as Partial<FifoSnapshot> | null;
    if (typeof s !== 'object' || s === null || s.kind !== 'kvfuzz.fifo-queue/state') {
      throw new StateError(`restoreState was given ${typeof state === 'object' ? 'an object' : String(state)} that backupState did not return`);
    }
    if (s.pageSize !== this.pageSize || s.numPages !== this.numPages || !(s.queue instanceof Int32Array) || s.queue.length > this.numPages) {
      throw new StateError(`restoreState: snapshot of pageSize ${String(s.pageSize)} × ${String(s.numPages)} pages does not fit pageSize ${this.pageSize} × ${this.numPages} pages`);
    }
    if (this.groupOpen) throw new FreeGroupError('restoreState inside an open free group');
    // A snapshot that was edited could name a page twice and overflow the ring: check it whole first.
    let bad: number | null = null;
    for (const page of s.queue) {
      if (!(page >= 1 && page <= this.numPages) || this.mark[page] === 1) bad ??= page;
      else this.mark[page] = 1;
    }
    for (const page of s.queue) if (page >= 1 && page <= this.numPages) this.mark[page] = 0;
    if (bad !== null) throw new StateError(`restoreState: the snapshot's queue names page ${bad} twice or outside [1, ${this.numPages}]`);
    this.pageState.fill(kHeld);
    this.pageState[0] = kReserved;
    this.head = 0;
    this.freeCount = 0;
    for (const page of s.queue) this.pushBack(page);
  }

  /** Every page free (queue 1 … numPages), nothing pending, no open group. */
  clear(): void {
    this.pageState.fill(kHeld);
    this.pageState[0] = kReserved;
    this.head = 0;
    this.freeCount = 0;
    for (let page = 1; page <= this.numPages; page++) this.pushBack(page);
    this.pendingCount = 0;
    this.groupOpen = false;
  }

  /**
   * Whole-structure check for quiet points (tests, after a model command); O(numPages).
   *
   * @throws InvariantError naming the first broken invariant.
   */
  verifyInvariants(): void {
    assert(this.pageState[0] === kReserved, `page 0 has state ${String(this.pageState[0])}, not reserved`);
    const seen = new Uint8Array(this.numPages + 1);
    for (let i = 0; i < this.freeCount; i++) {
      const page = this.ring[(this.head + i) % this.numPages] as number;
      assert(page >= 1 && page <= this.numPages, `the queue holds page ${page}, outside [1, ${this.numPages}]`);
      assert(seen[page] === 0, `page ${page} is in the queue twice`);
      assert(this.pageState[page] === kFree, `queued-for-reuse page ${page} has state ${String(this.pageState[page])}`);
      seen[page] = 1;
    }
    assert(this.groupOpen || this.pendingCount === 0, `${this.pendingCount} pages pending with no open group`);
    for (let j = 0; j < this.pendingCount; j++) {
      const page = this.pending[j] as number;
      assert(this.pageState[page] === kQueued && seen[page] === 0, `pending page ${page} has state ${String(this.pageState[page])}`);
      seen[page] = 1;
    }
    for (let page = 1; page <= this.numPages; page++) {
      assert(seen[page] === 1 || this.pageState[page] === kHeld, `page ${page} has state ${String(this.pageState[page])} but is in neither the queue nor the group`);
    }
  }

  // ---- internals -------------------------------------------------------------------------------

  private popFront(): number {
    assert(this.freeCount > 0, 'popFront on an empty queue');
    const page = this.ring[this.head] as number;
    this.head = this.head + 1 === this.numPages ? 0 : this.head + 1;
    this.freeCount--;
    this.pageState[page] = kHeld;
    return page;
  }

  private pushBack(page: number): void {
    assert(this.freeCount < this.numPages, `pushBack(${page}) on a full queue`);
    this.ring[(this.head + this.freeCount) % this.numPages] = page;
    this.freeCount++;
    this.pageState[page] = kFree;
  }

  /** Releases a held page to the back of the queue, or parks it in the open group. A page that is not held is left alone (checks off: undefined behaviour). */
  private giveBack(page: number): void {
    if (this.pageState[page] !== kHeld) return;
    if (this.groupOpen) {
      this.pageState[page] = kQueued;
      this.pending[this.pendingCount++] = page;
    } else {
      this.pushBack(page);
    }
  }

  private checkSlots(indices: ArrayLike<number>): void {
    let bad: number[] | null = null;
    for (let i = 0; i < indices.length; i++) {
      const slot = indices[i] as number;
      if (!Number.isInteger(slot) || slot < 0 || slot >= this.slotEnd) (bad ??= []).push(slot);
    }
    if (bad !== null) throw new SlotRangeError(bad, this.slotEnd);
  }

  /** Checks-on validation of a whole `freeSegments` call: slot range, row page structure, every page held and met once. */
  private checkSegments(segments: readonly FreeSegment[]): void {
    const ps = this.pageSize;
    for (const segment of segments) this.checkSlots(segment.indices);
    let k = 0;
    let bad: number[] | null = null;
    try {
      for (const segment of segments) {
        const { indices, startPos } = segment;
        for (let blockStart = 0; blockStart < indices.length; blockStart += ps) {
          const page = Math.floor((indices[blockStart] as number) / ps);
          const blockEnd = Math.min(blockStart + ps, indices.length);
          for (let i = blockStart + 1; i < blockEnd; i++) {
            if (Math.floor((indices[i] as number) / ps) !== page || (indices[i] as number) % ps !== (startPos + i) % ps) {
              throw new SegmentError(`segment at ${startPos}: row position ${startPos + i} holds slot ${String(indices[i])}, not offset ${(startPos + i) % ps} of page ${page}: the row breaks its page structure`);
            }
          }
          if ((indices[blockStart] as number) % ps !== 0) {
            throw new SegmentError(`segment at ${startPos}: row position ${startPos + blockStart} holds slot ${String(indices[blockStart])}, not offset 0 of page ${page}: the row breaks its page structure`);
          }
          if (this.pageState[page] !== kHeld || this.mark[page] === 1) (bad ??= []).push(page);
          if (this.mark[page] === 0) {
            this.mark[page] = 1;
            this.callPages[k++] = page;
          }
        }
      }
    } finally {
      for (let j = 0; j < k; j++) this.mark[this.callPages[j] as number] = 0;
    }
    if (bad !== null) throw new DoubleFreeError(bad);
  }

  /**
   * `lastLoc` is the slot of row position `held − 1`: −1 for an empty row, else a slot of a held
   * page with `(lastLoc + 1) % pageSize == held % pageSize`.
   */
  private checkLastLoc(request: number, held: number, lastLoc: number, heldName: string): void {
    const ps = this.pageSize;
    if (held === 0) {
      if (lastLoc !== -1) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} must be -1 when ${heldName} is 0`);
      return;
    }
    if (lastLoc < 0 || lastLoc >= this.slotEnd) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} is outside [0, ${this.slotEnd}) for ${heldName} ${held}`);
    if ((lastLoc + 1) % ps !== held % ps) {
      throw new LastLocError(`request ${request}: lastLoc ${lastLoc} does not fit ${heldName} ${held}: (lastLoc + 1) % ${ps} = ${(lastLoc + 1) % ps}, ${heldName} % ${ps} = ${held % ps}`);
    }
    const page = Math.floor(lastLoc / ps);
    if (this.pageState[page] !== kHeld) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} lies in page ${page}, which is not held`);
  }
}

/** The FIFO-queue allocator as a module provider for `pnpm validate`. */
const fifoProvider: AllocatorProvider = {
  name: 'fifo-queue',
  create: (config: AllocatorConfig): PageAllocator => new FifoAllocator(config),
};

export default fifoProvider;
