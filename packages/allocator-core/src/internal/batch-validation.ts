/**
 * The argument checks of the fast allocators' `allocExtend` and `allocDecode` (CONTRACT.md A21,
 * both modes), with the extend's lastLoc rule (A25, checks on) riding the same pass.
 *
 * @internal
 */
import { countExtendTokens } from '../plan-extend.js';
import type { DecodeBatch, ExtendBatch } from '../types.js';
import { refuseDecodeLengths, refuseDecodeRequest, refuseExtendLengths, refuseExtendRequest } from './argument-refusals.js';
import { extendLastLocMiss } from './checked-plans.js';
import { verifyDecodeLastLocs, verifyLastLocs } from './lastloc-checks.js';

/**
 * Checks an extend batch and returns its slot count `Σ (seq − prefix)`.
 *
 * @param pageShift - log2 of a power-of-two page size, else −1.
 * @throws ArgumentError when arrays differ in length, a length is not a non-negative integer, `seq < prefix`, or a lastLoc is not an int32.
 * @throws LastLocError (checks on) for the first lastLoc that does not fit its prefix.
 */
export function validateExtend(batch: ExtendBatch, pageSize: number, pageShift: number, checks: boolean): number {
  const { prefixLens, seqLens, lastLoc } = batch;
  const n = prefixLens.length;
  const mask = pageSize - 1;
  let miss = 0;
  if (seqLens.length !== n || lastLoc.length !== n) refuseExtendLengths(n, seqLens.length, lastLoc.length);
  for (let i = 0; i < n; i++) {
    const pre = prefixLens[i] as number;
    const seq = seqLens[i] as number;
    const last = lastLoc[i] as number;
    if (!Number.isInteger(pre) || pre < 0 || !Number.isInteger(seq) || seq < pre || (last | 0) !== last) refuseExtendRequest(i, pre, seq, last);
    if (checks) miss |= extendLastLocMiss(pre, last, mask);
  }
  // Checks on: the rule rode the loop above for power-of-two pages; a miss, or another page
  // size, takes the pass that names the request.
  if (checks && (pageShift < 0 || miss !== 0)) verifyLastLocs(prefixLens, lastLoc, 0, 'prefix', pageSize);
  return countExtendTokens(prefixLens, seqLens);
}

/**
 * Checks a decode batch. With `emptyRows` (checks on), also the empty row's lastLoc rule (−1 when
 * seq is 1, CONTRACT.md A25); the page rule of every row rides the checked decode planner (see
 * `checked-plans.ts`). At page size 1 the empty row's is the only rule, and the token allocator
 * plans with the unchecked planner in both modes.
 *
 * The loop stops at `seq < 2`, not `seq < 1`: the empty row leaves it for
 * {@link checkShortRequest}, which refuses a bad seq and (with `emptyRows`) notes the row's
 * lastLoc. Both modes thus run the same loop, and the check costs a call per empty row, which a
 * decode step rarely has.
 *
 * @throws ArgumentError when arrays differ in length, a length is not an integer ≥ 1, or a lastLoc is not an int32.
 * @throws LastLocError (with `emptyRows`) for the first lastLoc that does not fit, when an empty row's does not.
 */
export function validateDecode(batch: DecodeBatch, pageSize: number, emptyRows: boolean): void {
  const { seqLens, lastLoc } = batch;
  const n = seqLens.length;
  let miss = false;
  if (lastLoc.length !== n) refuseDecodeLengths(n, lastLoc.length);
  for (let i = 0; i < n; i++) {
    const seq = seqLens[i] as number;
    const last = lastLoc[i] as number;
    if (!Number.isInteger(seq) || seq < 2 || (last | 0) !== last) miss = checkShortRequest(i, seq, last, emptyRows) || miss;
  }
  // After every request's arguments: an ArgumentError of a later request comes first.
  if (miss) verifyDecodeLastLocs(seqLens, lastLoc, pageSize);
}

/**
 * A decode request the loop stopped at: refuses its arguments (see `refuseDecodeRequest`), else it
 * is an empty row, and (with `emptyRows`) returns whether its lastLoc breaks the rule.
 */
function checkShortRequest(i: number, seq: number, last: number, emptyRows: boolean): boolean {
  if (!Number.isInteger(seq) || seq < 1 || (last | 0) !== last) refuseDecodeRequest(i, seq, last);
  return emptyRows && last !== -1;
}
