import type { DecodeBatch, ExtendBatch, FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';
import { LedgerViolation } from './ledger-violation.js';
import type { PageLedger } from './page-ledger.js';

/** Largest call stamp before the stamps start over (int32, as `pageStamp` holds them). */
const kStampMax = 2 ** 31 - 2;

/**
 * Stands between a component (a prefix cache, a scheduler) and its allocator and writes every
 * page that crosses into a {@link PageLedger}: pages handed out (to `actor`), pages given back (by
 * anyone). It counts each give-back as the caller made it — also inside a free group, where the
 * allocator's later dedupe would hide a page given back twice — and checks the row page structure
 * of every extend and decode it forwards. A call the allocator rejects records nothing.
 */
export class RecordingAllocator implements PageAllocator {
  /** Holder id the next pages handed out are recorded for. */
  actor = -1;
  private groupOpen = false;
  // pageStamp[p] === stamp: page p was already listed by the call being recorded (pages 0 to numPages + 1).
  private readonly pageStamp: Int32Array;
  private stamp = 0;

  constructor(
    readonly inner: PageAllocator,
    readonly ledger: PageLedger,
  ) {
    this.pageStamp = new Int32Array(ledger.numPages + 2);
  }

  get pageSize(): number {
    return this.inner.pageSize;
  }

  get numPages(): number {
    return this.inner.numPages;
  }

  availableSize(): number {
    return this.inner.availableSize();
  }

  alloc(needSize: number): Int32Array | null {
    const out = this.inner.alloc(needSize);
    if (out !== null) {
      const ps = this.pageSize;
      const pages: number[] = [];
      for (let j = 0; j < out.length; j += ps) {
        const page = Math.floor((out[j] as number) / ps);
        for (let o = 0; o < ps; o++) {
          if (out[j + o] !== page * ps + o) throw new LedgerViolation('row-structure', `alloc(${needSize}) returned slot ${out[j + o]} at ${j + o}: whole pages in order expected`);
        }
        pages.push(page);
      }
      this.ledger.acquire(this.actor, pages, `alloc(${needSize})`);
    }
    return out;
  }

  allocExtend(batch: ExtendBatch): Int32Array | null {
    const pre = Array.from(batch.prefixLens);
    const seq = Array.from(batch.seqLens);
    const last = Array.from(batch.lastLoc);
    const out = this.inner.allocExtend(batch);
    if (out !== null) this.ledger.acquire(this.actor, this.newPages(pre, seq, last, out, 'allocExtend'), 'allocExtend');
    return out;
  }

  allocDecode(batch: DecodeBatch): Int32Array | null {
    const seq = Array.from(batch.seqLens);
    const last = Array.from(batch.lastLoc);
    const out = this.inner.allocDecode(batch);
    if (out !== null) {
      this.ledger.acquire(this.actor, this.newPages(seq.map((s) => s - 1), seq, last, out, 'allocDecode'), 'allocDecode');
    }
    return out;
  }

  free(indices: ArrayLike<number>): void {
    const pages = this.pagesOf(indices);
    this.inner.free(indices);
    if (pages.length > 0) this.ledger.release(undefined, pages, this.groupOpen, 'free');
  }

  freeSegments(segments: readonly FreeSegment[]): void {
    const perSegment = segments.map((s) => this.pagesOf(s.indices));
    this.inner.freeSegments(segments);
    const pages = perSegment.flat();
    if (pages.length > 0) this.ledger.release(undefined, pages, this.groupOpen, 'freeSegments');
  }

  freeGroupBegin(): void {
    this.inner.freeGroupBegin();
    this.groupOpen = true;
  }

  freeGroupEnd(): void {
    this.inner.freeGroupEnd();
    this.groupOpen = false;
    this.ledger.flushQueued();
  }

  backupState(): unknown {
    return { inner: this.inner.backupState(), ledger: this.ledger.snapshot() };
  }

  restoreState(state: unknown): void {
    const s = state as { inner: unknown; ledger: ReturnType<PageLedger['snapshot']> };
    this.inner.restoreState(s.inner);
    this.ledger.restore(s.ledger);
  }

  clear(): void {
    this.inner.clear();
    this.groupOpen = false;
    this.ledger.reset();
  }

  /**
   * Distinct pages of the given slots, in first-named order (one call gives a page back once,
   * however many of its slots it names). O(slots): a page in the pool is marked with this call's
   * stamp; one outside it, which the ledger then refuses, is kept in a set.
   */
  private pagesOf(slots: ArrayLike<number>): number[] {
    if (this.stamp === kStampMax) {
      this.pageStamp.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    const ps = this.pageSize;
    const pages: number[] = [];
    let outside: Set<number> | null = null;
    let last = Number.NaN;
    for (let i = 0; i < slots.length; i++) {
      const page = Math.floor((slots[i] as number) / ps);
      if (page === last) continue;
      last = page;
      if (page >= 0 && page < this.pageStamp.length) {
        if (this.pageStamp[page] === stamp) continue;
        this.pageStamp[page] = stamp;
      } else {
        outside ??= new Set<number>();
        if (outside.has(page)) continue;
        outside.add(page);
      }
      pages.push(page);
    }
    return pages;
  }

  /**
   * Checks an extend's output against the row page structure and returns the pages of the blocks it
   * opened. Part 1 must continue in `lastLoc`'s page; each new block is one page at matching offsets.
   */
  private newPages(pre: readonly number[], seq: readonly number[], last: readonly number[], out: Int32Array, op: string): number[] {
    const ps = this.pageSize;
    const pages: number[] = [];
    let k = 0;
    for (let i = 0; i < pre.length; i++) {
      const seqEnd = seq[i] as number;
      let blockPage = (pre[i] as number) % ps === 0 ? -1 : Math.floor((last[i] as number) / ps);
      let pos = pre[i] as number;
      // Block by block: the first slot of a new block names its page, and the rest must follow it slot by slot.
      while (pos < seqEnd) {
        const offset = pos % ps;
        if (offset === 0) blockPage = -1;
        if (blockPage === -1) {
          const slot = out[k] as number;
          if (slot % ps !== offset) throw new LedgerViolation('row-structure', `${op} request ${i}: slot ${slot} at row position ${pos}: slot % ${ps} must be ${offset}`);
          blockPage = Math.floor(slot / ps);
          pages.push(blockPage);
        }
        const base = blockPage * ps - (pos - offset);
        const blockEnd = Math.min(seqEnd, pos - offset + ps);
        for (; pos < blockEnd; pos++, k++) {
          const slot = out[k] as number;
          if (slot === base + pos) continue;
          if (slot % ps !== pos % ps) throw new LedgerViolation('row-structure', `${op} request ${i}: slot ${slot} at row position ${pos}: slot % ${ps} must be ${pos % ps}`);
          throw new LedgerViolation('row-structure', `${op} request ${i}: slot ${slot} (page ${Math.floor(slot / ps)}) at row position ${pos}, whose block is in page ${blockPage}`);
        }
      }
    }
    if (k !== out.length) throw new LedgerViolation('output-length', `${op} returned ${out.length} slots, expected ${k}`);
    return pages;
  }
}
