/**
 * The extend layout of the engine's `alloc_extend` kernel as pure functions. The reference
 * allocator uses them, and `@kvfuzz/gpu-kernels` mirrors them on the GPU.
 *
 * Each request `i` extends its row from `pre = prefixLens[i]` to `seq = seqLens[i]` in three
 * parts: (1) fill the partly used last page after `lastLoc[i]`, (2) whole new pages, (3) the tail
 * at the start of the last new page. Requests take free pages in batch order, contiguously.
 *
 * @packageDocumentation
 */
import { ArgumentError } from './errors.js';
import type { ExtendBatch } from './types.js';

/**
 * New pages an extend batch consumes: `Σ ceil(seq / pageSize) − ceil(pre / pageSize)`.
 *
 * @param prefixLens - tokens each request holds (tokens).
 * @param seqLens - each request's length after the extend (tokens).
 * @param pageSize - allocator page size (slots).
 */
export function countExtendPages(prefixLens: ArrayLike<number>, seqLens: ArrayLike<number>, pageSize: number): number {
  let pageCount = 0;
  for (let i = 0; i < prefixLens.length; i++) {
    pageCount += Math.ceil((seqLens[i] as number) / pageSize) - Math.ceil((prefixLens[i] as number) / pageSize);
  }
  return pageCount;
}

/** Slots an extend batch returns: `Σ (seq − pre)`. */
export function countExtendTokens(prefixLens: ArrayLike<number>, seqLens: ArrayLike<number>): number {
  let tokenCount = 0;
  for (let i = 0; i < prefixLens.length; i++) tokenCount += (seqLens[i] as number) - (prefixLens[i] as number);
  return tokenCount;
}

/**
 * Writes the extend layout into `out`, reading new pages from `freePages[freeStart ...]`.
 * The caller has checked that enough pages are there; nothing is allocated.
 *
 * @param batch - the requests, already validated (`seq >= pre`, consistent `lastLoc`).
 * @param pageSize - allocator page size (slots).
 * @param freePages - page ids in the order they are handed out.
 * @param freeStart - index in `freePages` of the first page to hand out.
 * @param out - receives `Σ(seq − pre)` slots, request after request.
 */
export function planExtendInto(
  batch: ExtendBatch,
  pageSize: number,
  freePages: ArrayLike<number>,
  freeStart: number,
  out: Int32Array,
): void {
  const { prefixLens, seqLens, lastLoc } = batch;
  let outPos = 0;
  let cursor = freeStart;
  for (let i = 0; i < prefixLens.length; i++) {
    const pre = prefixLens[i] as number;
    const seq = seqLens[i] as number;
    if (seq === pre) continue;
    const preCeil = Math.ceil(pre / pageSize) * pageSize;
    const seqFloor = Math.floor(seq / pageSize) * pageSize;
    const newPageCount = Math.ceil(seq / pageSize) - preCeil / pageSize;
    // Part 1 stays in lastLoc's page, so it never goes past seq.
    const part1End = Math.min(seq, preCeil);
    const last = lastLoc[i] as number;
    for (let pos = pre; pos < part1End; pos++) out[outPos++] = last + 1 + (pos - pre);
    if (part1End < seq) {
      // Part 2: whole pages, in free-list order.
      const wholeEnd = cursor + (seqFloor - preCeil) / pageSize;
      for (let page = cursor; page < wholeEnd; page++) {
        const base = (freePages[page] as number) * pageSize;
        for (let o = 0; o < pageSize; o++) out[outPos++] = base + o;
      }
      // Part 3: the tail sits at offset 0.. of the request's last new page (seq > preCeil, so seqFloor >= preCeil).
      const tailPageBase = (freePages[cursor + newPageCount - 1] as number) * pageSize;
      for (let pos = seqFloor; pos < seq; pos++) out[outPos++] = tailPageBase + (pos - seqFloor);
    }
    cursor += newPageCount;
  }
}

/** The result of {@link planExtend}. */
export interface ExtendPlan {
  /** The new slots, request after request. */
  readonly slots: Int32Array;
  /** How many pages from the front of the free list the batch consumes. */
  readonly pageCount: number;
}

/**
 * The extend layout for a batch against a free list: the new slots and the pages consumed, or
 * `null` when the free list is short (the engine returns `None` without consuming anything).
 *
 * @param batch - one entry per request; `seq >= pre` and arrays of one length.
 * @param pageSize - allocator page size (slots).
 * @param freePages - page ids in the order they are handed out.
 * @throws ArgumentError when the arrays differ in length or a request has `seq < pre`.
 */
export function planExtend(batch: ExtendBatch, pageSize: number, freePages: ArrayLike<number>): ExtendPlan | null {
  const { prefixLens, seqLens, lastLoc } = batch;
  if (seqLens.length !== prefixLens.length || lastLoc.length !== prefixLens.length) {
    throw new ArgumentError(
      `extend batch arrays differ in length: prefixLens ${prefixLens.length}, seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`,
    );
  }
  for (let i = 0; i < prefixLens.length; i++) {
    if ((seqLens[i] as number) < (prefixLens[i] as number)) {
      throw new ArgumentError(`request ${i}: seqLens ${String(seqLens[i])} < prefixLens ${String(prefixLens[i])}`);
    }
  }
  const pageCount = countExtendPages(prefixLens, seqLens, pageSize);
  if (pageCount > freePages.length) return null;
  const slots = new Int32Array(countExtendTokens(prefixLens, seqLens));
  planExtendInto(batch, pageSize, freePages, 0, slots);
  return { slots, pageCount };
}
