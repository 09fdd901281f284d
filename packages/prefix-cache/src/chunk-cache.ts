import type { PageAllocator } from '@kvfuzz/allocator-core';
import { RequestStateError } from './errors.js';
import { freeKvRow } from './free-kv-row.js';
import { checkReqKvInfo } from './req-kv-info.js';
import type { ReqToTokenPool } from './req-to-token-pool.js';
import type { FinishOptions, PrefixCache, Req } from './request.js';
import type { TreeNode } from './tree-node.js';

/**
 * The simplest cache: nothing is shared. A finished request gives back its whole committed row in
 * one call; an unfinished one keeps everything.
 */
export class ChunkCache implements PrefixCache {
  constructor(
    readonly allocator: PageAllocator,
    readonly reqToToken: ReqToTokenPool,
  ) {}

  matchPrefix(): { readonly indices: Int32Array; readonly lastNode: TreeNode | null } {
    return { indices: new Int32Array(0), lastNode: null };
  }

  lock(): void {}

  /**
   * Gives back row `[0, kvCommittedLen)`.
   *
   * @throws RequestStateError when the request is already finished or its lengths are out of order.
   */
  cacheFinishedReq(req: Req, _options?: FinishOptions): void {
    const kv = req.kv;
    if (req.finished === true) throw new RequestStateError(`request ${req.id}: cacheFinishedReq after cacheFinishedReq (row ${kv.reqPoolIdx}); a request finishes once`);
    checkReqKvInfo(kv, this.allocator.pageSize, this.reqToToken.rowLength);
    freeKvRow(this.allocator, this.reqToToken.row(kv.reqPoolIdx), kv.kvAllocatedLen, kv.swaEvictedSeqlen, [[0, kv.kvCommittedLen]]);
    req.finished = true;
  }

  cacheUnfinishedReq(): void {}

  evict(): number {
    return 0;
  }

  evictableSize(): number {
    return 0;
  }

  protectedSize(): number {
    return 0;
  }

  totalSize(): number {
    return 0;
  }
}
