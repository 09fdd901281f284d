/**
 * The in-line `lastLoc` check for power-of-two pages: the decode layout with the check riding
 * the planning pass, and the extend rule that rides the validation pass. The decode plan pass
 * already reads the `lastLoc` of nearly every request (all but those that start a page); the
 * check adds two integer operations there, where a separate pass would read every request again.
 *
 * The check is the contract's rule and no more: `lastLoc` is −1 for an empty row, else
 * `(lastLoc + 1 − held) % pageSize == 0`. Reading the page state of `lastLoc` as well (is its page
 * held, is it inside the pool) would add a dependent load to every request of a decode step; a
 * `lastLoc` in a page the caller no longer holds is the ledger's to catch, as are the middle slots
 * of a segment free.
 *
 * The decode loop is `planDecodePow2Into` with the check added in each branch, and otherwise the
 * same on purpose: the bench compares the two, so they must do the same work. Misses are OR-ed into
 * one word, and the caller finds the exact request on the slow path (`verifyLastLocs` in `lastloc-checks.ts`).
 *
 * @internal
 */
import type { DecodeBatch } from '../types.js';

/**
 * `planDecodePow2Into` plus the lastLoc page rule: a continuing request ORs `(lastLoc + 1) ^ (seq − 1)`
 * — its own slot and the page-start operand — into one word masked at the end, so the check adds
 * an XOR and an OR; the low bits agree exactly when `lastLoc + 1 ≡ seq − 1 (mod pageSize)`. A
 * request that starts a page has `seq − 1 ≡ 0`, so it ORs `lastLoc + 1` alone. Each branch reads
 * `lastLoc` itself, as the unchecked loop's continuing branch does: one read hoisted before the
 * branch ran slower. The empty row's stronger rule (seq 1 needs `lastLoc` = −1) is the validation
 * pass's (`validateDecode`); at page size 1, where it is the only rule, the token allocator plans
 * unchecked.
 *
 * @returns 0 when every request's lastLoc fits the page rule; otherwise non-zero, and `out` is garbage (nothing changed).
 */
export function planDecodeChecked(batch: DecodeBatch, pageSize: number, freePages: Int32Array, freeStart: number, out: Int32Array): number {
  const { seqLens, lastLoc } = batch;
  const mask = pageSize - 1;
  let cursor = freeStart;
  let check = 0;
  for (let i = 0; i < seqLens.length; i++) {
    const seq = seqLens[i] as number;
    if (((seq - 1) & mask) === 0) {
      out[i] = (freePages[cursor++] as number) * pageSize;
      check |= (lastLoc[i] as number) + 1;
    } else {
      const next = (lastLoc[i] as number) + 1;
      out[i] = next;
      check |= next ^ (seq - 1);
    }
  }
  return check & mask;
}

/**
 * The extend rule for one request at a power-of-two page (`mask` = pageSize − 1): 0 when `lastLoc`
 * fits a prefix of `pre` tokens (−1 for an empty prefix: every bit of `lastLoc + 1` counts), else
 * non-zero. `validateExtend` (`batch-validation.ts`) ORs it over the batch in the pass that already
 * reads every `pre` and `lastLoc`, so the extend planner is the unchecked one in both modes: inside
 * a checked planner the slot loops, not the check, ran slower, as V8 compiled the two planners apart.
 *
 * The empty prefix widens the mask by `(pre − 1) >> 31` (all ones exactly when `pre` is 0, for
 * `pre` below 2^31), not by a select: V8 compiled `pre === 0 ? −1 : mask` to a branch there, which
 * a batch with one fresh request in four mispredicts. A `pre` of 2^31 or more may read as empty and miss; the caller's exact pass
 * then decides, so a miss is never wrong, only slow.
 */
export function extendLastLocMiss(pre: number, lastLoc: number, mask: number): number {
  return (lastLoc + 1 - pre) & (mask | ((pre - 1) >> 31));
}
