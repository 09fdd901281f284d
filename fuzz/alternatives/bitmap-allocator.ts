/**
 * An alternative implementation of kvfuzz's allocator contract, written from the contract alone
 * (CONTRACT.md): free pages live in a bitmap and every allocation takes
 * the **lowest** free page ids first, whatever order they were given back in.
 *
 * It exists so that `pnpm validate` (contract mode) has a correct implementation whose page
 * choice differs from the reference's LIFO/FIFO lists: a validator that only passes the
 * reference's exact order would fail here. `needSort` is accepted and ignored, because always
 * taking the lowest ids already is the sorted order the engine's staging converges to.
 *
 * @packageDocumentation
 */
import type { AllocatorConfig, AllocatorProvider, DecodeBatch, ExtendBatch, FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';

/** Largest pool accepted: every slot id must stay exact in the `Int32Array` results. */
export const kSizeTokensMax = 2 ** 30;

/** Bits per bitmap word (`Uint32Array`). */
const kWordBits = 32;

// ---- errors ------------------------------------------------------------------------------------

/** Base class of this allocator's errors; `name` is stable so it survives the JSON-lines protocol. */
export class BitmapAllocatorError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** Bad configuration, raised before anything is built. */
export class ConfigError extends BitmapAllocatorError {
  constructor(message: string) {
    super('ConfigError', message);
  }
}

/** An argument that is rejected whether or not checks are on (sizes, lengths, `seq < prefix`). */
export class ArgumentError extends BitmapAllocatorError {
  constructor(message: string) {
    super('ArgumentError', message);
  }
}

/** A page given back that is not held: page 0, a free page, or one already given back in the open group. */
export class DoubleFreeError extends BitmapAllocatorError {
  constructor(pages: readonly number[]) {
    super('DoubleFreeError', `pages not currently allocated: [${pages.join(', ')}]`);
  }
}

/** A slot outside the pool or not an integer (checks on). */
export class SlotRangeError extends BitmapAllocatorError {
  constructor(slots: readonly number[], slotEnd: number) {
    super('SlotRangeError', `slots outside [0, ${slotEnd}): [${slots.join(', ')}]`);
  }
}

/** A `freeSegments` call that is not page-disjoint and aligned, or breaks the row page structure. */
export class SegmentError extends BitmapAllocatorError {
  constructor(message: string) {
    super('SegmentError', message);
  }
}

/** A `lastLoc` that does not fit its prefix (checks on). */
export class LastLocError extends BitmapAllocatorError {
  constructor(message: string) {
    super('LastLocError', message);
  }
}

/** Free-group misuse: nested begin, end without begin, a snapshot taken or restored inside a group. */
export class FreeGroupError extends BitmapAllocatorError {
  constructor(message: string) {
    super('FreeGroupError', message);
  }
}

/** `restoreState` was given something that is not this allocator's snapshot. */
export class StateError extends BitmapAllocatorError {
  constructor(message: string) {
    super('StateError', message);
  }
}

/** One of this file's own invariants broke: a bug here, never a caller error. */
export class InvariantError extends BitmapAllocatorError {
  constructor(message: string) {
    super('InvariantError', message);
  }
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new InvariantError(`Invariant broken: ${message}`);
}

// ---- geometry ----------------------------------------------------------------------------------

/** The resolved configuration: defaults filled in, page size and page count derived. */
interface Geometry {
  readonly pageSize: number;
  readonly numPages: number;
  readonly checks: boolean;
}

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

function resolveGeometry(config: AllocatorConfig): Geometry {
  if (typeof config !== 'object' || config === null) throw new ConfigError(`config ${String(config)} is not an object`);
  const sizeTokens = positiveInteger('sizeTokens', config.sizeTokens);
  const kernelPageSize = positiveInteger('kernelPageSize', config.kernelPageSize ?? 1);
  const dcpSize = positiveInteger('dcpSize', config.dcpSize ?? 1);
  flag('needSort', config.needSort, false);
  const checks = flag('checks', config.checks, true);
  // A power of two has exactly one bit set.
  if ((dcpSize & (dcpSize - 1)) !== 0) throw new ConfigError(`dcpSize ${dcpSize} is not a power of two`);
  if (sizeTokens > kSizeTokensMax) throw new ConfigError(`sizeTokens ${sizeTokens} exceeds the maximum ${kSizeTokensMax}`);
  const pageSize = kernelPageSize * dcpSize;
  if (sizeTokens % pageSize !== 0) {
    throw new ConfigError(`sizeTokens ${sizeTokens} is not a multiple of the page size ${pageSize} (kernelPageSize ${kernelPageSize} × dcpSize ${dcpSize})`);
  }
  return { pageSize, numPages: sizeTokens / pageSize, checks };
}

/** `a / b` rounded up, for non-negative integers. */
function divCeil(a: number, b: number): number {
  return Math.ceil(a / b);
}

/** Set bits in a 32-bit word (SWAR popcount). */
function popcount32(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** The snapshot `backupState` returns; a deep copy, never aliased by the allocator. */
interface BitmapSnapshot {
  readonly kind: 'kvfuzz.bitmap-lowest-first/state';
  readonly pageSize: number;
  readonly numPages: number;
  readonly freeBits: Uint32Array;
}

// ---- the allocator -----------------------------------------------------------------------------

/**
 * The bitmap allocator. A page is in exactly one of four states, told apart by two bitmaps:
 * free (bit set in `freeBits`), queued in the open free group (bit set in `queuedBits`), held
 * (neither, `1 ≤ p ≤ numPages`), or reserved (page 0, neither, never handed out).
 *
 * Invariants (checked by {@link BitmapAllocator.verifyInvariants}):
 * 1. `freeCount` = set bits of `freeBits`, `queuedCount` = set bits of `queuedBits`;
 * 2. no page is both free and queued, and no bit is set outside pages `1 .. numPages`;
 * 3. queued pages exist only while a group is open;
 * 4. every word below `lowWord` of `freeBits` is zero (the search for the lowest page starts there).
 */
export class BitmapAllocator implements PageAllocator {
  readonly pageSize: number;
  readonly numPages: number;
  /** One past the last slot: `(numPages + 1) * pageSize`. */
  readonly slotEnd: number;
  private readonly checks: boolean;

  // freeBits bit p (word p >>> 5, bit p & 31) set ⇔ page p is free.
  private readonly freeBits: Uint32Array;
  // queuedBits bit p set ⇔ page p was given back inside the open group and is released at its end.
  private readonly queuedBits: Uint32Array;
  private freeCount = 0;
  private queuedCount = 0;
  // No free bit lives in a word below lowWord, so the lowest-page search never rescans them.
  private lowWord = 0;
  private groupOpen = false;

  // picked[0, k): the pages the current allocation takes, ascending.
  private readonly picked: Int32Array;
  // callBits bit p set ⇔ page p was already met in the current free call; cleared before the call returns.
  private readonly callBits: Uint32Array;
  // callPages[0, k): the distinct pages of the current free call, in the order met.
  private readonly callPages: Int32Array;

  /**
   * @param config - pool size and geometry; see `AllocatorConfig`.
   * @throws ConfigError naming the bad value.
   */
  constructor(config: AllocatorConfig) {
    const geometry = resolveGeometry(config);
    this.pageSize = geometry.pageSize;
    this.numPages = geometry.numPages;
    this.checks = geometry.checks;
    this.slotEnd = (this.numPages + 1) * this.pageSize;
    const words = divCeil(this.numPages + 1, kWordBits);
    this.freeBits = new Uint32Array(words);
    this.queuedBits = new Uint32Array(words);
    this.callBits = new Uint32Array(words);
    this.picked = new Int32Array(this.numPages);
    this.callPages = new Int32Array(this.numPages + 1);
    this.clear();
  }

  /** Free slots: free pages times the page size (pages queued in an open group are not free yet). */
  availableSize(): number {
    return this.freeCount * this.pageSize;
  }

  /**
   * Whole pages for `needSize` slots, lowest page ids first.
   *
   * @param needSize - slots wanted (a multiple of the page size).
   * @returns the slots of each page, ascending, or `null` when fewer pages are free.
   * @throws ArgumentError when `needSize` is negative, not an integer or not a page multiple.
   */
  alloc(needSize: number): Int32Array | null {
    if (!Number.isInteger(needSize) || needSize < 0) throw new ArgumentError(`alloc size ${String(needSize)} is not a non-negative integer`);
    if (needSize % this.pageSize !== 0) throw new ArgumentError(`alloc size ${needSize} is not a multiple of the page size ${this.pageSize}`);
    const pageCount = needSize / this.pageSize;
    if (pageCount > this.freeCount) return null;
    const out = new Int32Array(needSize);
    this.takeLowest(pageCount);
    const ps = this.pageSize;
    for (let j = 0; j < pageCount; j++) {
      const firstSlot = (this.picked[j] as number) * ps;
      for (let offset = 0; offset < ps; offset++) out[j * ps + offset] = firstSlot + offset;
    }
    return out;
  }

  /**
   * The `Σ(seq − prefix)` new slots of an extend batch, request after request. Row positions
   * `[prefix, min(seq, ceilToPage(prefix)))` continue `lastLoc`'s page; every later page block of
   * the row gets its own new page, taken lowest first, request after request.
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
    this.takeLowest(pageCount);
    let outPos = 0;
    let cursor = 0;
    for (let i = 0; i < n; i++) {
      const pre = prefixLens[i] as number;
      const seq = seqLens[i] as number;
      const firstNewBlock = divCeil(pre, ps);
      // Part 1: the positions up to the end of lastLoc's page (or seq, if sooner) follow lastLoc.
      const fillEnd = Math.min(seq, firstNewBlock * ps);
      const last = lastLoc[i] as number;
      for (let pos = pre; pos < fillEnd; pos++) out[outPos++] = last + 1 + (pos - pre);
      // Parts 2 and 3: one new page per page block; a partial last block sits at offsets 0 ...
      const blockEnd = divCeil(seq, ps);
      for (let block = firstNewBlock; block < blockEnd; block++) {
        const firstSlot = (this.picked[cursor++] as number) * ps;
        const posEnd = Math.min(seq, (block + 1) * ps);
        for (let pos = block * ps; pos < posEnd; pos++) out[outPos++] = firstSlot + (pos % ps);
      }
    }
    assert(outPos === tokenCount, `extend wrote ${outPos} slots, expected ${tokenCount}`);
    assert(cursor === pageCount, `extend used ${cursor} pages, took ${pageCount}`);
    return out;
  }

  /**
   * One new slot per request: row position `seq − 1` opens a new page (offset 0, lowest first)
   * when it is page-aligned, else it follows `lastLoc`.
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
    this.takeLowest(pageCount);
    let cursor = 0;
    for (let i = 0; i < n; i++) {
      const pos = (seqLens[i] as number) - 1;
      out[i] = pos % ps === 0 ? (this.picked[cursor++] as number) * ps : (lastLoc[i] as number) + 1;
    }
    assert(cursor === pageCount, `decode used ${cursor} pages, took ${pageCount}`);
    return out;
  }

  /**
   * Gives back the whole page of every slot, each page once per call; inside a free group the
   * pages are queued until the group ends.
   *
   * @throws SlotRangeError (checks on) for a slot that is not an integer in `[0, slotEnd)`.
   * @throws DoubleFreeError (checks on) naming every page that is not held (page 0, free, or already queued).
   */
  free(indices: ArrayLike<number>): void {
    const n = indices.length;
    if (n === 0) return;
    if (this.checks) this.checkSlots(indices);
    const ps = this.pageSize;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const page = Math.floor((indices[i] as number) / ps);
      // With checks off a bad slot is undefined behaviour; skipping it keeps the bitmaps in range.
      if (!(page >= 0 && page <= this.numPages)) continue;
      if (this.testBit(this.callBits, page)) continue;
      this.setBit(this.callBits, page);
      this.callPages[k++] = page;
    }
    // Forget the marks now, so that a rejection below leaves callBits clean for the next call.
    for (let j = 0; j < k; j++) this.clearBit(this.callBits, this.callPages[j] as number);
    if (this.checks) {
      let bad: number[] | null = null;
      for (let j = 0; j < k; j++) {
        const page = this.callPages[j] as number;
        if (!this.isHeld(page)) (bad ??= []).push(page);
      }
      if (bad !== null) throw new DoubleFreeError(bad);
    }
    for (let j = 0; j < k; j++) this.giveBack(this.callPages[j] as number);
  }

  /**
   * Gives back page-disjoint, page-aligned row segments. Every segment is validated before any
   * page is released, so a rejected call changes nothing.
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
  }

  /**
   * Releases every page queued since the matching {@link BitmapAllocator.freeGroupBegin}.
   *
   * @throws FreeGroupError when no group is open.
   */
  freeGroupEnd(): void {
    if (!this.groupOpen) throw new FreeGroupError('freeGroupEnd without a matching freeGroupBegin');
    this.groupOpen = false;
    if (this.queuedCount === 0) return;
    let lowQueuedWord = -1;
    for (let w = 0; w < this.queuedBits.length; w++) {
      const queued = this.queuedBits[w] as number;
      if (queued === 0) continue;
      if (lowQueuedWord < 0) lowQueuedWord = w;
      this.freeBits[w] = (this.freeBits[w] as number) | queued;
      this.queuedBits[w] = 0;
    }
    this.freeCount += this.queuedCount;
    this.queuedCount = 0;
    this.lowWord = Math.min(this.lowWord, lowQueuedWord);
  }

  /**
   * A deep copy of the free bitmap; reusable for any number of restores.
   *
   * @throws FreeGroupError inside an open free group (queued pages have no snapshot form).
   */
  backupState(): unknown {
    if (this.groupOpen) throw new FreeGroupError('backupState inside an open free group');
    const snapshot: BitmapSnapshot = { kind: 'kvfuzz.bitmap-lowest-first/state', pageSize: this.pageSize, numPages: this.numPages, freeBits: this.freeBits.slice() };
    return Object.freeze(snapshot);
  }

  /**
   * Returns to a snapshot: pages handed out since are free again, frees since are undone.
   *
   * @throws StateError when `state` is not a snapshot of this geometry.
   * @throws FreeGroupError inside an open free group.
   */
  restoreState(state: unknown): void {
    const s = state as Partial<BitmapSnapshot> | null;
    if (typeof s !== 'object' || s === null || s.kind !== 'kvfuzz.bitmap-lowest-first/state') {
      throw new StateError(`restoreState was given ${typeof state === 'object' ? 'an object' : String(state)} that backupState did not return`);
    }
    if (s.pageSize !== this.pageSize || s.numPages !== this.numPages || !(s.freeBits instanceof Uint32Array) || s.freeBits.length !== this.freeBits.length) {
      throw new StateError(`restoreState: snapshot of pageSize ${String(s.pageSize)} × ${String(s.numPages)} pages does not fit pageSize ${this.pageSize} × ${this.numPages} pages`);
    }
    if (this.groupOpen) throw new FreeGroupError('restoreState inside an open free group');
    this.freeBits.set(s.freeBits);
    let count = 0;
    for (let w = 0; w < this.freeBits.length; w++) count += popcount32(this.freeBits[w] as number);
    this.freeCount = count;
    this.lowWord = 0;
  }

  /** Every page free, nothing queued, no open group. */
  clear(): void {
    this.freeBits.fill(0);
    this.queuedBits.fill(0);
    for (let page = 1; page <= this.numPages; page++) this.setBit(this.freeBits, page);
    this.freeCount = this.numPages;
    this.queuedCount = 0;
    this.lowWord = 0;
    this.groupOpen = false;
  }

  /**
   * Whole-structure check for quiet points (tests, after a model command); O(numPages).
   *
   * @throws InvariantError naming the first broken invariant.
   */
  verifyInvariants(): void {
    let free = 0;
    let queued = 0;
    for (let w = 0; w < this.freeBits.length; w++) {
      const f = this.freeBits[w] as number;
      const q = this.queuedBits[w] as number;
      assert((f & q) === 0, `word ${w}: pages both free and queued (${(f & q) >>> 0})`);
      assert(w >= this.lowWord || f === 0, `word ${w} below lowWord ${this.lowWord} holds free pages`);
      free += popcount32(f);
      queued += popcount32(q);
    }
    assert(free === this.freeCount, `freeCount ${this.freeCount}, but ${free} bits are set`);
    assert(queued === this.queuedCount, `queuedCount ${this.queuedCount}, but ${queued} bits are set`);
    assert(this.groupOpen || queued === 0, `${queued} pages queued with no open group`);
    assert(!this.testBit(this.freeBits, 0) && !this.testBit(this.queuedBits, 0), 'page 0 is free or queued');
    for (let page = this.numPages + 1; page < this.freeBits.length * kWordBits; page++) {
      assert(!this.testBit(this.freeBits, page) && !this.testBit(this.queuedBits, page), `page ${page} past numPages ${this.numPages} is free or queued`);
    }
  }

  // ---- internals -------------------------------------------------------------------------------

  private testBit(bits: Uint32Array, page: number): boolean {
    return (((bits[page >>> 5] as number) >>> (page & 31)) & 1) === 1;
  }

  private setBit(bits: Uint32Array, page: number): void {
    bits[page >>> 5] = (bits[page >>> 5] as number) | (1 << (page & 31));
  }

  private clearBit(bits: Uint32Array, page: number): void {
    bits[page >>> 5] = (bits[page >>> 5] as number) & ~(1 << (page & 31));
  }

  private isHeld(page: number): boolean {
    return page >= 1 && page <= this.numPages && !this.testBit(this.freeBits, page) && !this.testBit(this.queuedBits, page);
  }

  /** Takes the `pageCount` lowest free pages into `picked[0, pageCount)`; the caller has checked there are enough. */
  private takeLowest(pageCount: number): void {
    const before = this.freeCount;
    let taken = 0;
    let w = this.lowWord;
    while (taken < pageCount) {
      assert(w < this.freeBits.length, `ran out of words with ${taken} of ${pageCount} pages taken`);
      let bits = this.freeBits[w] as number;
      while (bits !== 0 && taken < pageCount) {
        // bits & -bits isolates the lowest set bit; clz32 turns it into its index.
        const bit = 31 - Math.clz32(bits & -bits);
        this.picked[taken++] = w * kWordBits + bit;
        bits &= bits - 1;
      }
      this.freeBits[w] = bits;
      if (bits === 0) w++;
    }
    this.lowWord = w;
    this.freeCount -= pageCount;
    assert(this.freeCount === before - pageCount && this.freeCount >= 0, `freeCount ${this.freeCount} after taking ${pageCount} of ${before}`);
  }

  /** Releases a held page, or queues it in the open group. A page that is not held is left alone (checks off: undefined behaviour). */
  private giveBack(page: number): void {
    if (!this.isHeld(page)) return;
    if (this.groupOpen) {
      this.setBit(this.queuedBits, page);
      this.queuedCount++;
    } else {
      this.setBit(this.freeBits, page);
      this.freeCount++;
      this.lowWord = Math.min(this.lowWord, page >>> 5);
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
          for (let i = blockStart; i < blockEnd; i++) {
            const expect = page * ps + (i - blockStart);
            if (indices[i] !== expect) {
              throw new SegmentError(`segment at ${startPos}: row position ${startPos + i} holds slot ${String(indices[i])}, expected ${expect} (offset ${i - blockStart} of page ${page}): the row breaks its page structure`);
            }
          }
          if (!this.isHeld(page) || this.testBit(this.callBits, page)) (bad ??= []).push(page);
          if (!this.testBit(this.callBits, page)) {
            this.setBit(this.callBits, page);
            this.callPages[k++] = page;
          }
        }
      }
    } finally {
      for (let j = 0; j < k; j++) this.clearBit(this.callBits, this.callPages[j] as number);
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
    if (!this.isHeld(page)) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} lies in page ${page}, which is not held`);
  }
}

/** The bitmap allocator as a module provider for `pnpm validate`. */
const bitmapProvider: AllocatorProvider = {
  name: 'bitmap-lowest-first',
  create: (config: AllocatorConfig): PageAllocator => new BitmapAllocator(config),
};

export default bitmapProvider;
