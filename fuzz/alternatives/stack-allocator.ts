/**
 * An alternative implementation of kvfuzz's allocator contract, written from CONTRACT.md alone: a
 * page-state array and a stack of free pages. Pages given back are pushed in the order they were
 * named and allocations pop the top, so the page named last is reused first; a fresh or cleared
 * pool hands out pages 1, 2, 3, … .
 *
 * It takes the contract's other choices where the reference and the other alternatives refuse:
 * - a `sizeTokens` that is not a page multiple is accepted and floored (A3);
 * - a `dcpSize` that is not a power of two is accepted (A4);
 * - inside an open free group, a bad give-back (A24: page 0, a free page, one given back already,
 *   a slot outside the pool) is accepted at the call and refused at `freeGroupEnd`, which then
 *   changes nothing: the group stays open with what it queued, and only `clear()` ends it.
 *
 * @packageDocumentation
 */
import type { AllocatorConfig, AllocatorProvider, DecodeBatch, ExtendBatch, FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';

/** Largest slot id + 1 accepted: every slot must stay exact in the `Int32Array` results. */
export const kSlotEndMax = 2 ** 31 - 1;

// pageState values. Page 0 receives the padded tokens' dummy writes: kReserved forever.
export const kFree = 0;
export const kHeld = 1;
/** Given back inside the open free group; pushed on the stack when the group ends. */
export const kQueued = 2;
export const kReserved = 3;

// ---- errors ------------------------------------------------------------------------------------

/** Base class of this allocator's errors; `name` is stable, so it survives the JSON-lines protocol. */
export class StackAllocatorError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** A configuration refused before anything is built. */
export class ConfigError extends StackAllocatorError {
  constructor(message: string) {
    super('ConfigError', message);
  }
}

/** A size, a length or a batch shape refused whatever `checks` says. */
export class ArgumentError extends StackAllocatorError {
  constructor(message: string) {
    super('ArgumentError', message);
  }
}

/** A give-back of a page that is not held (checks on). */
export class DoubleFreeError extends StackAllocatorError {
  constructor(message: string) {
    super('DoubleFreeError', message);
  }
}

/** A slot that is not an integer inside the pool (checks on). */
export class SlotRangeError extends StackAllocatorError {
  constructor(message: string) {
    super('SlotRangeError', message);
  }
}

/** Segments that are unaligned or share a page, or (checks on) break the row page structure. */
export class SegmentError extends StackAllocatorError {
  constructor(message: string) {
    super('SegmentError', message);
  }
}

/** A `lastLoc` that does not fit its prefix (checks on). */
export class LastLocError extends StackAllocatorError {
  constructor(message: string) {
    super('LastLocError', message);
  }
}

/** Group misuse, a snapshot inside a group, or a group end refused for a bad give-back it holds. */
export class FreeGroupError extends StackAllocatorError {
  constructor(message: string) {
    super('FreeGroupError', message);
  }
}

/** A `restoreState` argument that is not a snapshot of this allocator. */
export class StateError extends StackAllocatorError {
  constructor(message: string) {
    super('StateError', message);
  }
}

// ---- configuration -----------------------------------------------------------------------------

function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw new ConfigError(`${name} ${String(value)} is not a positive integer`);
  return value;
}

function flag(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(`${name} ${String(value)} is not a boolean`);
  return value;
}

/** A state snapshot: the stack bottom to top, and every page's state. */
interface StackSnapshot {
  readonly kind: 'state-stack/1';
  readonly pageSize: number;
  readonly numPages: number;
  readonly stack: Int32Array;
  readonly pageState: Uint8Array;
}

/**
 * The allocator. Invariants (checked by {@link StackAllocator.verifyInvariants}):
 * (1) the stack holds exactly the pages whose state is kFree, each once, never page 0;
 * (2) kQueued pages are exactly `groupPages[0, groupCount)`, and only while a group is open;
 * (3) free + held + queued = numPages.
 *
 * Members are protected rather than private so that `fuzz/mutants` can plant a bug by overriding
 * one step; nothing in this file relies on that.
 */
export class StackAllocator implements PageAllocator {
  readonly pageSize: number;
  readonly numPages: number;
  /** One past the last slot of the pool: `(numPages + 1) × pageSize`. */
  protected readonly slotEnd: number;
  protected readonly checks: boolean;
  // pageState[p]: kFree, kHeld, kQueued or kReserved (page 0 only). Kept with checks off too, so a
  // caller error there cannot put a page on the stack twice.
  protected readonly pageState: Uint8Array;
  // stack[0, top): the free pages; stack[top - 1] is handed out next.
  protected readonly stack: Int32Array;
  protected top = 0;
  protected groupOpen = false;
  // groupPages[0, groupCount): the pages given back in the open group, in the order they were named.
  protected readonly groupPages: Int32Array;
  protected groupCount = 0;
  // The first bad give-back accepted in the open group (checks on), which its end refuses; null when none.
  protected groupBad: string | null = null;
  // mark[p] === markStamp: page p was met in the current call (dedupe without clearing).
  private readonly mark: Uint32Array;
  private markStamp = 0;

  constructor(config: AllocatorConfig) {
    if (typeof config !== 'object' || config === null) throw new ConfigError(`config ${String(config)} is not an object`);
    const sizeTokens = positiveInteger('sizeTokens', config.sizeTokens);
    const kernelPageSize = positiveInteger('kernelPageSize', config.kernelPageSize ?? 1);
    const dcpSize = positiveInteger('dcpSize', config.dcpSize ?? 1);
    flag('needSort', config.needSort, false);
    this.checks = flag('checks', config.checks, true);
    if (sizeTokens % dcpSize !== 0) throw new ConfigError(`sizeTokens ${sizeTokens} is not divisible by dcpSize ${dcpSize}`);
    this.pageSize = kernelPageSize * dcpSize;
    // A remainder past the last whole page is dropped, as the engine does (A3).
    this.numPages = Math.floor(sizeTokens / this.pageSize);
    if (this.numPages === 0) throw new ConfigError(`sizeTokens ${sizeTokens} is smaller than one page of ${this.pageSize}`);
    this.slotEnd = (this.numPages + 1) * this.pageSize;
    if (this.slotEnd > kSlotEndMax) throw new ConfigError(`sizeTokens ${sizeTokens}: slots up to ${this.slotEnd} do not fit an Int32Array`);
    this.pageState = new Uint8Array(this.numPages + 1);
    this.stack = new Int32Array(this.numPages);
    this.groupPages = new Int32Array(this.numPages);
    this.mark = new Uint32Array(this.numPages + 1);
    this.clear();
  }

  availableSize(): number {
    return this.top * this.pageSize;
  }

  alloc(needSize: number): Int32Array | null {
    const ps = this.pageSize;
    if (typeof needSize !== 'number' || !Number.isInteger(needSize) || needSize < 0) throw new ArgumentError(`alloc size ${String(needSize)} is not a non-negative integer`);
    if (needSize % ps !== 0) throw new ArgumentError(`alloc size ${needSize} is not a multiple of the page size ${ps}`);
    const pageCount = needSize / ps;
    if (pageCount > this.top) return null;
    const out = new Int32Array(needSize);
    for (let j = 0; j < pageCount; j++) {
      const first = this.pop() * ps;
      for (let o = 0; o < ps; o++) out[j * ps + o] = first + o;
    }
    return out;
  }

  allocExtend(batch: ExtendBatch): Int32Array | null {
    const { prefixLens, seqLens, lastLoc } = batch;
    const n = prefixLens.length;
    const ps = this.pageSize;
    if (seqLens.length !== n || lastLoc.length !== n) {
      throw new ArgumentError(`extend arrays differ in length: prefixLens ${n}, seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`);
    }
    let tokens = 0;
    let pagesNeeded = 0;
    for (let i = 0; i < n; i++) {
      const pre = prefixLens[i] as number;
      const seq = seqLens[i] as number;
      const last = lastLoc[i] as number;
      if (!Number.isInteger(pre) || pre < 0) throw new ArgumentError(`request ${i}: prefixLens ${pre} is not a non-negative integer`);
      if (!Number.isInteger(seq) || seq < pre) throw new ArgumentError(`request ${i}: seqLens ${seq} is not an integer ≥ prefixLens ${pre}`);
      if (!Number.isInteger(last)) throw new ArgumentError(`request ${i}: lastLoc ${last} is not an integer`);
      if (this.checks) this.checkLastLoc(i, pre, last, 'prefix');
      tokens += seq - pre;
      pagesNeeded += Math.ceil(seq / ps) - Math.ceil(pre / ps);
    }
    if (pagesNeeded > this.top) return null;
    const out = new Int32Array(tokens);
    let k = 0;
    for (let i = 0; i < n; i++) {
      const pre = prefixLens[i] as number;
      const seq = seqLens[i] as number;
      // The slot the next position goes to; a position on a page boundary opens a new page.
      let next = (lastLoc[i] as number) + 1;
      for (let pos = pre; pos < seq; pos++) {
        if (pos % ps === 0) next = this.pop() * ps;
        out[k++] = next++;
      }
    }
    return out;
  }

  allocDecode(batch: DecodeBatch): Int32Array | null {
    const { seqLens, lastLoc } = batch;
    const n = seqLens.length;
    const ps = this.pageSize;
    if (lastLoc.length !== n) throw new ArgumentError(`decode arrays differ in length: seqLens ${n}, lastLoc ${lastLoc.length}`);
    let pagesNeeded = 0;
    for (let i = 0; i < n; i++) {
      const seq = seqLens[i] as number;
      const last = lastLoc[i] as number;
      if (!Number.isInteger(seq) || seq < 1) throw new ArgumentError(`request ${i}: seqLens ${seq} is not an integer ≥ 1`);
      if (!Number.isInteger(last)) throw new ArgumentError(`request ${i}: lastLoc ${last} is not an integer`);
      if (this.checks) this.checkLastLoc(i, seq - 1, last, 'seq − 1');
      if ((seq - 1) % ps === 0) pagesNeeded++;
    }
    if (pagesNeeded > this.top) return null;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const seq = seqLens[i] as number;
      out[i] = (seq - 1) % ps === 0 ? this.pop() * ps : (lastLoc[i] as number) + 1;
    }
    return out;
  }

  free(indices: ArrayLike<number>): void {
    const n = indices.length;
    if (n === 0) return;
    const ps = this.pageSize;
    if (!this.checks) {
      // Undefined behaviour for a caller error: a page that is not held is skipped, never pushed twice.
      for (let i = 0; i < n; i++) {
        const slot = indices[i] as number;
        if (Number.isInteger(slot) && slot >= 0 && slot < this.slotEnd) this.giveBack(Math.floor(slot / ps));
      }
      return;
    }
    const stamp = this.nextStamp();
    let problem: string | null = null;
    for (let i = 0; i < n && problem === null; i++) {
      const slot = indices[i] as number;
      if (!Number.isInteger(slot) || slot < 0 || slot >= this.slotEnd) {
        problem = `slot ${slot} is outside [0, ${this.slotEnd})`;
        break;
      }
      const page = Math.floor(slot / ps);
      if (this.mark[page] === stamp) continue;
      this.mark[page] = stamp;
      if (this.pageState[page] !== kHeld) problem = `page ${page} is ${this.describeState(page)}`;
    }
    if (problem !== null) {
      this.refuseGiveBack(`free of ${n} slot(s): ${problem}`, problem.startsWith('slot') ? 'range' : 'state');
      return;
    }
    // Every page is held: give each back once, in the order named.
    for (let i = 0; i < n; i++) {
      const page = Math.floor((indices[i] as number) / ps);
      if (this.pageState[page] === kHeld) this.giveBack(page);
    }
  }

  freeSegments(segments: readonly FreeSegment[]): void {
    const ps = this.pageSize;
    // Shape first, whatever checks say (A22): aligned starts, each after the previous one's last page.
    let prevLastPage = -1;
    let prevEnd = 0;
    for (const { indices, startPos } of segments) {
      if (indices.length === 0) continue;
      if (!Number.isInteger(startPos) || startPos < 0) throw new SegmentError(`segment start ${startPos} is not a non-negative integer`);
      if (startPos % ps !== 0) throw new SegmentError(`segment start ${startPos} is not page-aligned (page size ${ps})`);
      if (startPos / ps <= prevLastPage) throw new SegmentError(`segment at ${startPos} shares a page with the one ending at ${prevEnd}`);
      prevEnd = startPos + indices.length;
      prevLastPage = Math.floor((prevEnd - 1) / ps);
    }
    if (!this.checks) {
      for (const { indices } of segments) {
        for (let j = 0; j < indices.length; j += ps) {
          const slot = indices[j] as number;
          if (Number.isInteger(slot) && slot >= 0 && slot < this.slotEnd) this.giveBack(Math.floor(slot / ps));
        }
      }
      return;
    }
    // Row page structure and range: each page block is consecutive slots from the start of one page.
    for (const { indices, startPos } of segments) {
      for (let j = 0; j < indices.length; j++) {
        const slot = indices[j] as number;
        if (!Number.isInteger(slot) || slot < 0 || slot >= this.slotEnd) throw new SlotRangeError(`segment at ${startPos}: slot ${slot} is outside [0, ${this.slotEnd})`);
        const expect = j % ps === 0 ? slot - (slot % ps) : (indices[j - (j % ps)] as number) + (j % ps);
        if (slot !== expect) {
          throw new SegmentError(`segment at ${startPos}: row position ${startPos + j} holds slot ${slot}, expected ${expect}: the row breaks its page structure`);
        }
      }
    }
    // Pages: each held, and named once across the whole call.
    const stamp = this.nextStamp();
    for (const { indices, startPos } of segments) {
      for (let j = 0; j < indices.length; j += ps) {
        const page = Math.floor((indices[j] as number) / ps);
        const problem = this.mark[page] === stamp ? `page ${page} is named twice` : this.pageState[page] !== kHeld ? `page ${page} is ${this.describeState(page)}` : null;
        if (problem !== null) {
          this.refuseGiveBack(`freeSegments, segment at ${startPos}: ${problem}`, 'state');
          return;
        }
        this.mark[page] = stamp;
      }
    }
    for (const { indices } of segments) {
      for (let j = 0; j < indices.length; j += ps) this.giveBack(Math.floor((indices[j] as number) / ps));
    }
  }

  freeGroupBegin(): void {
    if (this.groupOpen) throw new FreeGroupError('free groups cannot be nested');
    this.groupOpen = true;
    this.groupCount = 0;
    this.groupBad = null;
  }

  /**
   * Releases the group — unless it holds a bad give-back accepted at its call: then it throws and
   * changes nothing, and the group stays open until `clear()`.
   */
  freeGroupEnd(): void {
    if (!this.groupOpen) throw new FreeGroupError('freeGroupEnd without a matching freeGroupBegin');
    if (this.groupBad !== null) this.refuseGroupEnd();
    this.releaseGroup();
  }

  backupState(): unknown {
    if (this.groupOpen) throw new FreeGroupError('backupState inside an open free group');
    const snapshot: StackSnapshot = {
      kind: 'state-stack/1',
      pageSize: this.pageSize,
      numPages: this.numPages,
      stack: this.stack.slice(0, this.top),
      pageState: this.pageState.slice(),
    };
    return Object.freeze(snapshot);
  }

  restoreState(state: unknown): void {
    const s = state as Partial<StackSnapshot> | null;
    if (typeof s !== 'object' || s === null || s.kind !== 'state-stack/1' || !(s.stack instanceof Int32Array) || !(s.pageState instanceof Uint8Array)) {
      throw new StateError('restoreState was given something backupState did not return');
    }
    if (s.pageSize !== this.pageSize || s.numPages !== this.numPages || s.pageState.length !== this.numPages + 1) {
      throw new StateError(`restoreState: a snapshot of ${String(s.numPages)} pages of ${String(s.pageSize)} does not fit ${this.numPages} pages of ${this.pageSize}`);
    }
    if (this.groupOpen) throw new FreeGroupError('restoreState inside an open free group');
    // The stack must list exactly the free pages, each once.
    let free = 0;
    for (let page = 1; page <= this.numPages; page++) if (s.pageState[page] === kFree) free++;
    const onStack = new Set<number>();
    for (const page of s.stack) if (page >= 1 && page <= this.numPages && s.pageState[page] === kFree) onStack.add(page);
    if (s.pageState[0] !== kReserved || onStack.size !== s.stack.length || free !== s.stack.length) throw new StateError('restoreState: the snapshot is inconsistent');
    this.pageState.set(s.pageState);
    this.stack.set(s.stack);
    this.top = s.stack.length;
  }

  clear(): void {
    this.pageState.fill(kFree);
    this.pageState[0] = kReserved;
    // Page 1 on top: a fresh pool hands out 1, 2, 3, …
    for (let i = 0; i < this.numPages; i++) this.stack[i] = this.numPages - i;
    this.top = this.numPages;
    this.groupOpen = false;
    this.groupCount = 0;
    this.groupBad = null;
  }

  /** Not part of the contract: the class invariants, for tests at quiet points. */
  verifyInvariants(): void {
    const seen = new Uint8Array(this.numPages + 1);
    for (let i = 0; i < this.top; i++) {
      const page = this.stack[i] as number;
      if (page < 1 || page > this.numPages || seen[page] === 1 || this.pageState[page] !== kFree) throw new Error(`invariant: stack entry ${i} is page ${page}`);
      seen[page] = 1;
    }
    let free = 0;
    let queued = 0;
    for (let page = 1; page <= this.numPages; page++) {
      if (this.pageState[page] === kFree) free++;
      if (this.pageState[page] === kQueued) queued++;
    }
    if (free !== this.top) throw new Error(`invariant: ${free} pages free, ${this.top} on the stack`);
    if (queued !== (this.groupOpen ? this.groupCount : 0)) throw new Error(`invariant: ${queued} pages queued, the group lists ${this.groupCount}`);
    if (this.pageState[0] !== kReserved) throw new Error('invariant: page 0 is not reserved');
  }

  // ---- steps -----------------------------------------------------------------------------------

  protected pop(): number {
    const page = this.stack[--this.top] as number;
    this.pageState[page] = kHeld;
    return page;
  }

  protected push(page: number): void {
    this.pageState[page] = kFree;
    this.stack[this.top++] = page;
  }

  /** A held page given back: free now, or queued in the open group. Anything else is skipped. */
  protected giveBack(page: number): void {
    if (this.pageState[page] !== kHeld) return;
    if (this.groupOpen) {
      this.pageState[page] = kQueued;
      this.groupPages[this.groupCount++] = page;
    } else {
      this.push(page);
    }
  }

  /**
   * A bad give-back (checks on), seen before anything changed: outside a group it is refused now;
   * inside one it is accepted and changes nothing, and the group's end is refused.
   */
  protected refuseGiveBack(what: string, kind: 'range' | 'state'): void {
    if (this.groupOpen) {
      this.groupBad ??= what;
      return;
    }
    throw kind === 'range' ? new SlotRangeError(what) : new DoubleFreeError(what);
  }

  /** The end of a group that holds a bad give-back: refused, nothing changed, the group still open. */
  protected refuseGroupEnd(): never {
    throw new FreeGroupError(`freeGroupEnd refused, the group holds a bad give-back (${this.groupBad ?? ''}); nothing was released, clear() ends the group`);
  }

  /** Every page the group queued goes on the stack, in the order named; the group closes. */
  protected releaseGroup(): void {
    for (let i = 0; i < this.groupCount; i++) this.push(this.groupPages[i] as number);
    this.groupCount = 0;
    this.groupOpen = false;
    this.groupBad = null;
  }

  protected describeState(page: number): string {
    const state = this.pageState[page];
    return state === kReserved ? 'reserved' : state === kFree ? 'free' : state === kQueued ? 'given back already in this group' : 'held';
  }

  /** `lastLoc` is the slot of row position `held − 1`: −1 for an empty row, else a slot in the pool with its offset. */
  private checkLastLoc(request: number, held: number, lastLoc: number, heldName: string): void {
    const ps = this.pageSize;
    if (held === 0) {
      if (lastLoc !== -1) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} must be -1 when ${heldName} is 0`);
      return;
    }
    if (lastLoc < 0 || lastLoc >= this.slotEnd) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} is outside [0, ${this.slotEnd})`);
    if ((lastLoc + 1) % ps !== held % ps) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} does not fit ${heldName} ${held} (page size ${ps})`);
  }

  private nextStamp(): number {
    if (this.markStamp === 0xffffffff) {
      this.mark.fill(0);
      this.markStamp = 0;
    }
    return ++this.markStamp;
  }
}

/** The state-stack allocator as a module provider for `pnpm validate`. */
const stackProvider: AllocatorProvider = {
  name: 'state-stack',
  create: (config: AllocatorConfig): PageAllocator => new StackAllocator(config),
};

export default stackProvider;
