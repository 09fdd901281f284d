import type { DecodeBatch, ExtendBatch } from '@kvfuzz/allocator-core';

/** Which planted bug a buggy extend planner carries: a broken page cursor, tail page or part 1. */
export type ExtendBug = 'cursor-inclusive' | 'tail-first-page' | 'part1-unbounded';

/**
 * The extend layout with one planted bug; otherwise the same three parts as the plain reference's
 * `extendLayout`. Written out again on purpose: a mutant must not share the code it corrupts.
 */
export function buggyPlanExtendInto(bug: ExtendBug, batch: ExtendBatch, pageSize: number, freePages: ArrayLike<number>, freeStart: number, out: Int32Array): void {
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
    // The page cursor sums over j <= i instead of j < i.
    const base = bug === 'cursor-inclusive' ? cursor + newPageCount : cursor;
    // Part 1 without min(seq, …) writes past seq when the extend fits in the old page.
    const part1End = bug === 'part1-unbounded' ? preCeil : Math.min(seq, preCeil);
    const last = lastLoc[i] as number;
    for (let pos = pre; pos < part1End && outPos < out.length; pos++) out[outPos++] = last + 1 + (pos - pre);
    if (part1End < seq) {
      for (let pos = preCeil; pos < seqFloor; pos++) {
        const k = pos - preCeil;
        out[outPos++] = (freePages[base + Math.floor(k / pageSize)] as number) * pageSize + (k % pageSize);
      }
      // The tail goes to the first instead of the last page of the request's range.
      const tailPage = freePages[bug === 'tail-first-page' ? base : base + newPageCount - 1] as number;
      for (let pos = seqFloor; pos < seq; pos++) out[outPos++] = tailPage * pageSize + (pos - seqFloor);
    }
    cursor += newPageCount;
  }
}

/** The CPU decode page count with `seq % ps == 0` instead of `seq % ps == 1`. */
export function buggyCountDecodePages(batch: DecodeBatch, pageSize: number): number {
  let pageCount = 0;
  for (let i = 0; i < batch.seqLens.length; i++) if ((batch.seqLens[i] as number) % pageSize === 0) pageCount++;
  return pageCount;
}

/** The CPU extend page count with `floor` instead of `ceil`. */
export function buggyCountExtendPages(batch: ExtendBatch, pageSize: number): number {
  let pageCount = 0;
  for (let i = 0; i < batch.prefixLens.length; i++) {
    pageCount += Math.floor((batch.seqLens[i] as number) / pageSize) - Math.floor((batch.prefixLens[i] as number) / pageSize);
  }
  return pageCount;
}
