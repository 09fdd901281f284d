/**
 * The in-line `lastLoc` check for power-of-two pages: the decode layouts with the check riding
 * the planning pass, and the extend rule that rides the validation pass. The decode plan pass
 * already reads every `lastLoc`; the check adds three integer operations a request there
 * (measured +0.1 ns on a 3.3 ns decode plan step with reused output, +0.4 ns on the fresh array a
 * call returns), where a separate validation pass cost decode a third of its time.
 *
 * The check is the contract's rule and no more: `lastLoc` is −1 for an empty row, else
 * `(lastLoc + 1 − held) % pageSize == 0`. Reading the page state of `lastLoc` as well (is its page
 * held, is it inside the pool) cost +0.6 to +1.8 ns a request, 5–16% of a decode step; a `lastLoc`
 * in a page the caller no longer holds is the ledger's to catch, as are the middle slots of a
 * segment free.
 *
 * The decode loops are `planDecodeInto` with the check added, line for line on purpose:
 * the bench compares them with the unchecked planners, so they must do the same work otherwise.
 * The check is branch-free (the empty-row case is a select, not a branch, as V8 compiles it; a
 * branch or a sign mask cost more), except at page size 1, where it rides the planner's own
 * page-start branch ({@link planDecodeCheckedByBranch}). Misses are OR-ed into one word, and the
 * caller finds the exact request on the slow path (`BaseAllocator.verifyLastLocs`).
 *
 * @internal
 */
import type { DecodeBatch } from '../types.js';

/**
 * `planDecodeInto` for a power-of-two `pageSize`, plus the lastLoc check. (Taking the empty row's
 * rule to the validation pass instead made that pass 0.3 ns a request slower in both modes, or
 * 0.45 ns in the checked one alone: more than the select costs here.)
 *
 * @returns 0 when every request's lastLoc fits; otherwise non-zero, and `out` is garbage (nothing changed).
 */
export function planDecodeChecked(batch: DecodeBatch, pageSize: number, freePages: Int32Array, freeStart: number, out: Int32Array): number {
  const { seqLens, lastLoc } = batch;
  const mask = pageSize - 1;
  let cursor = freeStart;
  let miss = 0;
  for (let i = 0; i < seqLens.length; i++) {
    const seq = seqLens[i] as number;
    const last = lastLoc[i] as number;
    // An empty row (seq 1) keeps every bit of lastLoc + 1: only −1 passes.
    miss |= (last + 2 - seq) & (seq === 1 ? -1 : mask);
    const startsPage = Math.ceil(seq / pageSize) !== Math.ceil((seq - 1) / pageSize);
    out[i] = startsPage ? (freePages[cursor++] as number) * pageSize : last + 1;
  }
  return miss;
}

/**
 * {@link planDecodeChecked} with the check split by the branch the planner takes anyway, for page
 * size 1 (the token allocator), where every request starts a page and only the empty row has a
 * rule: only it reads `lastLoc`, which the unchecked planner never reads at page size 1. A request
 * that continues a page (none at page size 1) ORs `lastLoc + 2 − seq` into a word masked once at
 * the end, so the function is right for every power-of-two page.
 *
 * Measured in per-case children at page 1, batch 4096: 1.038 → 0.996 and batch 64: 1.032 → 0.982
 * (the select form reads every `lastLoc`). At pages 64 and 512 the same loop measured worse than
 * the select form (batch 1 at page 64: 1.069 → 1.130), so those keep it.
 *
 * @returns 0 when every request's lastLoc fits; otherwise non-zero, and `out` is garbage (nothing changed).
 */
export function planDecodeCheckedByBranch(batch: DecodeBatch, pageSize: number, freePages: Int32Array, freeStart: number, out: Int32Array): number {
  const { seqLens, lastLoc } = batch;
  const mask = pageSize - 1;
  let cursor = freeStart;
  // continuing: OR of lastLoc + 2 − seq over the requests that continue a page (masked at the end).
  let continuing = 0;
  let miss = 0;
  for (let i = 0; i < seqLens.length; i++) {
    const seq = seqLens[i] as number;
    const startsPage = Math.ceil(seq / pageSize) !== Math.ceil((seq - 1) / pageSize);
    if (startsPage) {
      if (seq === 1) miss |= (lastLoc[i] as number) + 1;
      else if (mask !== 0) miss |= ((lastLoc[i] as number) + 2 - seq) & mask;
      out[i] = (freePages[cursor++] as number) * pageSize;
    } else {
      const last = lastLoc[i] as number;
      continuing |= last + 2 - seq;
      out[i] = last + 1;
    }
  }
  return (continuing & mask) | miss;
}

/**
 * The extend rule for one request at a power-of-two page (`mask` = pageSize − 1): 0 when `lastLoc`
 * fits a prefix of `pre` tokens (−1 for an empty prefix: every bit of `lastLoc + 1` counts), else
 * non-zero. `BaseAllocator.validateExtend` ORs it over the batch in the pass that already reads
 * every `pre` and `lastLoc`, so the extend planner is the unchecked one in both modes.
 *
 * In the planner instead, the check measured allocExtend + free of one 16k-token request at page 1
 * at 1.15 against 1.00 here: the slot loops, not the check, ran slower in the checked planner, as
 * V8 compiled the two planners apart.
 *
 * The empty prefix widens the mask by `(pre − 1) >> 31` (all ones exactly when `pre` is 0, for
 * `pre` below 2^31), not by a select: V8 compiled `pre === 0 ? −1 : mask` to a branch there, which
 * a batch with one fresh request in four mispredicts; allocExtend + free of 4096 requests at page 64
 * measured 1.05 → 1.02. A `pre` of 2^31 or more may read as empty and miss; the caller's exact pass
 * then decides, so a miss is never wrong, only slow.
 */
export function extendLastLocMiss(pre: number, lastLoc: number, mask: number): number {
  return (lastLoc + 1 - pre) & (mask | ((pre - 1) >> 31));
}
