/**
 * The decode layout of the engine's `alloc_decode` kernel as pure functions: one new token per
 * request; a request whose new length starts a page takes the next free page (batch order),
 * the others continue after `lastLoc`.
 *
 * @packageDocumentation
 */
import { ArgumentError } from './errors.js';
import type { DecodeBatch } from './types.js';

/**
 * New pages a decode batch consumes: requests with `ceil(seq / ps) > ceil((seq − 1) / ps)`, i.e.
 * `seq % ps == 1` for `ps >= 2` and every request at page size 1.
 */
export function countDecodePages(seqLens: ArrayLike<number>, pageSize: number): number {
  if (isPowerOfTwo(pageSize)) return countDecodePagesPow2(seqLens, pageSize);
  let pageCount = 0;
  for (let i = 0; i < seqLens.length; i++) {
    const seq = seqLens[i] as number;
    pageCount += Math.ceil(seq / pageSize) - Math.ceil((seq - 1) / pageSize);
  }
  return pageCount;
}

/**
 * Writes the decode layout into `out` (one slot per request), reading new pages from
 * `freePages[freeStart ...]`. The caller has checked capacity; nothing is allocated.
 */
export function planDecodeInto(
  batch: DecodeBatch,
  pageSize: number,
  freePages: ArrayLike<number>,
  freeStart: number,
  out: Int32Array,
): void {
  if (isPowerOfTwo(pageSize)) {
    planDecodePow2Into(batch, pageSize, freePages, freeStart, out);
    return;
  }
  const { seqLens, lastLoc } = batch;
  let cursor = freeStart;
  for (let i = 0; i < seqLens.length; i++) {
    const seq = seqLens[i] as number;
    const startsPage = Math.ceil(seq / pageSize) !== Math.ceil((seq - 1) / pageSize);
    out[i] = startsPage ? (freePages[cursor++] as number) * pageSize : (lastLoc[i] as number) + 1;
  }
}

/*
 * Power-of-two pages: a request's new length starts a page exactly when `(seq − 1) & (pageSize − 1)`
 * is 0, integer operations where the general rule takes two float divisions a request, so the
 * allocator's decode does not depend on whether V8 inlined the general loop where `pageSize` is a
 * known constant (a division by 64 becomes a multiplication).
 */

/** {@link countDecodePages} for a power-of-two `pageSize`. @internal */
export function countDecodePagesPow2(seqLens: ArrayLike<number>, pageSize: number): number {
  const mask = pageSize - 1;
  let pageCount = 0;
  for (let i = 0; i < seqLens.length; i++) {
    if ((((seqLens[i] as number) - 1) & mask) === 0) pageCount++;
  }
  return pageCount;
}

/** {@link planDecodeInto} for a power-of-two `pageSize`. @internal */
export function planDecodePow2Into(batch: DecodeBatch, pageSize: number, freePages: ArrayLike<number>, freeStart: number, out: Int32Array): void {
  const { seqLens, lastLoc } = batch;
  const mask = pageSize - 1;
  let cursor = freeStart;
  for (let i = 0; i < seqLens.length; i++) {
    const seq = seqLens[i] as number;
    if (((seq - 1) & mask) === 0) {
      out[i] = (freePages[cursor++] as number) * pageSize;
    } else {
      out[i] = (lastLoc[i] as number) + 1;
    }
  }
}

function isPowerOfTwo(n: number): boolean {
  return n >= 1 && (n & (n - 1)) === 0;
}

/** The result of {@link planDecode}. */
export interface DecodePlan {
  /** One new slot per request. */
  readonly slots: Int32Array;
  /** How many pages from the front of the free list the batch consumes. */
  readonly pageCount: number;
}

/**
 * The decode layout for a batch against a free list, or `null` when the free list is short.
 *
 * @throws ArgumentError when the arrays differ in length or a length is below 1.
 */
export function planDecode(batch: DecodeBatch, pageSize: number, freePages: ArrayLike<number>): DecodePlan | null {
  const { seqLens, lastLoc } = batch;
  if (lastLoc.length !== seqLens.length) {
    throw new ArgumentError(`decode batch arrays differ in length: seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`);
  }
  for (let i = 0; i < seqLens.length; i++) {
    if (!((seqLens[i] as number) >= 1)) throw new ArgumentError(`request ${i}: seqLens ${String(seqLens[i])} < 1`);
  }
  const pageCount = countDecodePages(seqLens, pageSize);
  if (pageCount > freePages.length) return null;
  const slots = new Int32Array(seqLens.length);
  planDecodeInto(batch, pageSize, freePages, 0, slots);
  return { slots, pageCount };
}
