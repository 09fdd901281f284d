import { RequestStateError } from './errors.js';

/**
 * A request's KV bookkeeping (the engine's `ReqKvInfo`). The tree owns row positions
 * `[0, cacheProtectedLen)`; the request owns `[cacheProtectedLen, kvAllocatedLen)`.
 *
 * Invariants (checked by {@link checkReqKvInfo}): `0 ≤ cacheProtectedLen ≤ kvCommittedLen ≤
 * kvAllocatedLen ≤ row length`; `cacheProtectedLen` and `swaEvictedSeqlen` are multiples of the
 * allocator page; `swaEvictedSeqlen ≤ kvCommittedLen`.
 */
export interface ReqKvInfo {
  /** The request's row in the req-to-token pool. */
  readonly reqPoolIdx: number;
  /** Row prefix the tree owns (page aligned). */
  cacheProtectedLen: number;
  /** Tokens whose KV is final. */
  kvCommittedLen: number;
  /** Tokens with a slot (committed plus speculative over-allocation). */
  kvAllocatedLen: number;
  /** Row prefix whose sliding-window (SWA) peers are already released (page aligned on the allocator page). */
  swaEvictedSeqlen: number;
}

/** A fresh record for a request that holds `prefixLen` tokens matched from the tree. */
export function newReqKvInfo(reqPoolIdx: number, prefixLen: number): ReqKvInfo {
  return { reqPoolIdx, cacheProtectedLen: prefixLen, kvCommittedLen: prefixLen, kvAllocatedLen: prefixLen, swaEvictedSeqlen: 0 };
}

/**
 * Checks the lengths, their order and alignments of a request record.
 *
 * @param pageSize - the allocator page size (slots).
 * @param rowLength - the req-to-token row length (positions).
 * @throws RequestStateError naming the lengths that break the order.
 */
export function checkReqKvInfo(kv: ReqKvInfo, pageSize: number, rowLength: number): void {
  const { cacheProtectedLen: cpl, kvCommittedLen: committed, kvAllocatedLen: allocated, swaEvictedSeqlen: swa } = kv;
  for (const [name, value] of [['cacheProtectedLen', cpl], ['kvCommittedLen', committed], ['kvAllocatedLen', allocated], ['swaEvictedSeqlen', swa]] as const) {
    if (!Number.isInteger(value)) throw new RequestStateError(`row ${kv.reqPoolIdx}: ${name} ${value} is not an integer`);
  }
  if (!(0 <= cpl && cpl <= committed && committed <= allocated && allocated <= rowLength)) {
    throw new RequestStateError(
      `row ${kv.reqPoolIdx}: need 0 ≤ cacheProtectedLen ${cpl} ≤ kvCommittedLen ${committed} ≤ kvAllocatedLen ${allocated} ≤ row length ${rowLength}`,
    );
  }
  if (cpl % pageSize !== 0) throw new RequestStateError(`row ${kv.reqPoolIdx}: cache_protected_len must be page aligned: ${cpl} % ${pageSize} = ${cpl % pageSize}`);
  if (swa % pageSize !== 0 || swa < 0 || swa > committed) {
    throw new RequestStateError(`row ${kv.reqPoolIdx}: swaEvictedSeqlen ${swa} must be page aligned (page ${pageSize}) and within [0, ${committed}]`);
  }
}
