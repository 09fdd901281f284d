import { ArgumentError, ceilToPage, floorToPage, InvariantError, type PageAllocator } from '@kvfuzz/allocator-core';
import { coalesceRanges, type RowRange } from './coalesce-ranges.js';
import { CacheConfigError, PageSplitError, RangeOrderError, RequestStateError } from './errors.js';
import type { EvictionPolicy } from './eviction-policy.js';
import { freeKvRowSegments, segmentsOfRanges } from './free-kv-row.js';
import { checkReqKvInfo } from './req-kv-info.js';
import type { ReqToTokenPool } from './req-to-token-pool.js';
import { RadixTree } from './radix-tree.js';
import type { FinishOptions, PrefixCache, Req } from './request.js';
import type { TreeNode } from './tree-node.js';

/**
 * Which finish path a cache takes:
 * - `unified` (latest): component caps on the kernel grid, the truncation tail deferred and given
 *   back with the unaligned tail in one coalesced `freeKvRow`, duplicates freed inside insert;
 * - `classic` (RadixCache 006b0e3d): duplicates and the unaligned tail as separate plain frees;
 *   a cap must sit on the tree page (the Mamba cache's assertion), its tail freed first.
 */
export type FinishPath = 'unified' | 'classic';

/** How a radix cache is built. */
export interface RadixCacheConfig {
  readonly allocator: PageAllocator;
  readonly reqToToken: ReqToTokenPool;
  /**
   * The attention kernel's page (slots). Under DCP the allocator and tree page is this times the
   * DCP size; caps and some engine boundaries live on this finer grid.
   * @defaultValue allocator.pageSize
   */
  readonly kernelPageSize?: number;
  /** @defaultValue 'lru' */
  readonly evictionPolicy?: EvictionPolicy;
  /** @defaultValue false */
  readonly disabled?: boolean;
  /** @defaultValue 'unified' */
  readonly finishPath?: FinishPath;
}

/**
 * The radix prefix cache: a {@link RadixTree} over an allocator, plus the request finish paths of
 * the engine's `cache_finished_req` / `cache_unfinished_req` and the release helpers the scheduler
 * calls around them. Every boundary where the cache gives pages back is on the allocator page
 * (`pageSize`), never the kernel page — the root of the DCP seam bugs.
 *
 * The steps a planted bug changes are protected methods (`fuzz/mutants/prefix-cache`).
 */
export class RadixCache implements PrefixCache {
  readonly tree: RadixTree;
  readonly allocator: PageAllocator;
  readonly reqToToken: ReqToTokenPool;
  /** Tree page = allocator page (slots). */
  readonly pageSize: number;
  readonly kernelPageSize: number;
  readonly disabled: boolean;
  readonly finishPath: FinishPath;

  /** @throws CacheConfigError for an unknown policy or finish path, or a kernel page that does not divide the allocator page. */
  constructor(config: RadixCacheConfig) {
    this.allocator = config.allocator;
    this.reqToToken = config.reqToToken;
    this.pageSize = config.allocator.pageSize;
    this.kernelPageSize = config.kernelPageSize ?? this.pageSize;
    if (!Number.isInteger(this.kernelPageSize) || this.kernelPageSize <= 0 || this.pageSize % this.kernelPageSize !== 0) {
      throw new CacheConfigError(`kernelPageSize ${String(config.kernelPageSize)} does not divide the allocator page ${this.pageSize}`);
    }
    this.finishPath = config.finishPath ?? 'unified';
    if (this.finishPath !== 'unified' && this.finishPath !== 'classic') throw new CacheConfigError(`finishPath ${String(this.finishPath)} is not 'unified' or 'classic'`);
    this.disabled = config.disabled ?? false;
    this.tree = this.createTree({ allocator: config.allocator, evictionPolicy: config.evictionPolicy ?? 'lru', disabled: this.disabled });
  }

  matchPrefix(tokens: ArrayLike<number>, extraKey: string | null): { readonly indices: Int32Array; readonly lastNode: TreeNode } {
    return this.tree.matchPrefix({ tokens, extraKey });
  }

  lock(node: TreeNode | null): void {
    if (node !== null) this.tree.incLockRef(node);
  }

  evict(numTokens: number): number {
    return this.tree.evict(numTokens);
  }

  evictableSize(): number {
    return this.tree.evictableSize();
  }

  protectedSize(): number {
    return this.tree.protectedSize();
  }

  totalSize(): number {
    return this.tree.totalSize();
  }

  /**
   * A finished request: cache its page-aligned committed prefix (up to the cap), give back the
   * duplicates and everything past it, and release its lock. The over-allocated tail and the row
   * are the caller's ({@link RadixCache.releaseRequest} does all three in the engine's order).
   *
   * @throws RequestStateError when the request is already finished, its lengths are out of order or the cap is not a non-negative integer.
   * @throws PageSplitError (classic path) when the cap is not on the tree page.
   */
  cacheFinishedReq(req: Req, options: FinishOptions = {}): void {
    const kv = req.kv;
    this.checkRunning(req, 'cacheFinishedReq');
    const kvLen = kv.kvCommittedLen;
    const cap = options.capTokens ?? null;
    if (cap !== null && (!Number.isInteger(cap) || cap < 0)) throw new RequestStateError(`request ${req.id}: capTokens ${cap} is not a non-negative integer`);
    const row = this.reqToToken.row(kv.reqPoolIdx);
    if (this.disabled) {
      this.freeRowRanges(req, [[0, kvLen]]);
    } else if (options.insert === false) {
      this.freeRowRanges(req, [[kv.cacheProtectedLen, kvLen]]);
    } else if (this.finishPath === 'unified') {
      this.finishUnified(req, row, kvLen, cap);
    } else {
      this.finishClassic(req, row, kvLen, cap);
    }
    if (req.lastNode !== null && req.lastNode !== this.tree.root) this.tree.decLockRef(req.lastNode);
    req.lastNode = null;
    req.finished = true;
  }

  /**
   * Chunked prefill: cache the page-aligned committed prefix, point the row at the tree's slots,
   * move the request's lock to the new end, and protect the new prefix.
   *
   * @throws RequestStateError when the request is already finished or its lengths are out of order.
   */
  cacheUnfinishedReq(req: Req): void {
    this.checkRunning(req, 'cacheUnfinishedReq');
    if (this.disabled) return;
    const kv = req.kv;
    const keys = floorToPage(kv.kvCommittedLen, this.pageSize);
    if (keys <= kv.cacheProtectedLen) return;
    const row = this.reqToToken.row(kv.reqPoolIdx);
    const tokens = Array.prototype.slice.call(req.tokens, 0, keys) as number[];
    const value = row.slice(0, keys);
    if (this.finishPath === 'unified') {
      this.tree.insert({ tokens, extraKey: req.extraKey }, value, { prevPrefixLen: kv.cacheProtectedLen });
    } else {
      const prefixLen = this.tree.insert({ tokens, extraKey: req.extraKey }, value);
      if (prefixLen > kv.cacheProtectedLen) this.allocator.free(row.slice(kv.cacheProtectedLen, prefixLen));
    }
    const match = this.tree.matchPrefix({ tokens, extraKey: req.extraKey });
    if (match.indices.length !== keys) throw new InvariantError(`Invariant broken: request ${req.id}: re-match after insert found ${match.indices.length} of ${keys} tokens`);
    this.reqToToken.write(kv.reqPoolIdx, kv.cacheProtectedLen, match.indices.subarray(kv.cacheProtectedLen));
    this.tree.incLockRef(match.lastNode);
    if (req.lastNode !== null && req.lastNode !== this.tree.root) this.tree.decLockRef(req.lastNode);
    req.lastNode = match.lastNode;
    kv.cacheProtectedLen = keys;
  }

  /**
   * Gives back speculative over-allocation: row `[ceil(committed, pageSize), allocated)`. The start
   * is aligned to the ALLOCATOR page — under DCP wider than the kernel page — so it never shares a
   * page with the tail the finish path gives back.
   *
   * @throws RequestStateError when the request's lengths are out of order.
   */
  releaseOverallocated(req: Req): void {
    const kv = req.kv;
    this.checkReq(req);
    const start = Math.min(kv.kvAllocatedLen, this.overallocatedStart(kv.kvCommittedLen));
    if (start < kv.kvAllocatedLen) this.freeRowRanges(req, [[start, kv.kvAllocatedLen]]);
    kv.kvAllocatedLen = start;
  }

  /**
   * Gives back row ranges of a running request in one call — e.g. rejected speculative tokens,
   * split wherever the caller's bookkeeping split them (mid-page included). The ranges must lie in
   * the part the request owns, `[cacheProtectedLen, kvAllocatedLen)`, past its committed tokens'
   * page; the caller updates the request's lengths.
   *
   * @throws RequestStateError when the request is already finished.
   * @throws RangeOrderError when the ranges are not ascending and disjoint inside the owned part.
   * @throws SegmentError when two ranges with a gap share a page (nothing is given back).
   */
  releaseRanges(req: Req, ranges: readonly RowRange[]): void {
    const kv = req.kv;
    this.checkRunning(req, 'releaseRanges');
    const floor = Math.max(kv.cacheProtectedLen, ceilToPage(kv.kvCommittedLen, this.pageSize));
    for (const [start, end] of ranges) {
      if (end > start && start < floor) {
        throw new RangeOrderError(`request ${req.id}: range [${start}, ${end}) reaches below ${floor}, where the tree or the committed tokens own the row`);
      }
    }
    this.freeRowRanges(req, ranges);
  }

  /**
   * The engine's release path for a request that is done: finish (cache and give back), then the
   * over-allocated tail, then the row.
   */
  releaseRequest(req: Req, options: FinishOptions = {}): void {
    this.cacheFinishedReq(req, options);
    this.releaseOverallocated(req);
    this.reqToToken.free(req.kv.reqPoolIdx);
  }

  /**
   * Sliding-window eviction during decode: raises the SWA floor E to the allocator page below
   * `committed − max(window, pageSize)` (at least one page stays, so the last inserted leaf is never
   * all tombstone). With one pool nothing is given back here: the floor decides, at the finish,
   * which parts go back full-side only.
   *
   * @param windowTokens - the sliding window (tokens), a positive integer.
   * @throws ArgumentError for a bad window; RequestStateError when the request is already finished or its lengths are out of order.
   */
  advanceSwaWindow(req: Req, windowTokens: number): void {
    if (!Number.isInteger(windowTokens) || windowTokens <= 0) throw new ArgumentError(`windowTokens ${String(windowTokens)} is not a positive integer`);
    this.checkRunning(req, 'advanceSwaWindow');
    const kv = req.kv;
    const threshold = kv.kvCommittedLen - Math.max(windowTokens, this.pageSize);
    const floor = floorToPage(Math.max(kv.swaEvictedSeqlen, threshold), this.swaFloorPageSize());
    if (floor > kv.swaEvictedSeqlen) kv.swaEvictedSeqlen = floor;
  }

  /** A fresh, empty tree (the caller clears the allocator). */
  reset(): void {
    this.tree.reset();
  }

  // ---- the steps planted bugs change -----------------------------------------------------------

  protected createTree(config: ConstructorParameters<typeof RadixTree>[0]): RadixTree {
    return new RadixTree(config);
  }

  /** Unified path (latest). */
  protected finishUnified(req: Req, row: Int32Array, kvLen: number, cap: number | null): void {
    const cpl = req.kv.cacheProtectedLen;
    const eff = cap === null ? kvLen : Math.min(kvLen, cap);
    const tailStart = eff < kvLen ? this.truncationTailStart(eff, cpl) : null;
    const alignedLen = this.cachedLength(eff);
    this.tree.insert({ tokens: Array.prototype.slice.call(req.tokens, 0, alignedLen) as number[], extraKey: req.extraKey }, row.slice(0, alignedLen), { prevPrefixLen: cpl });
    // Below the protected prefix the tree owns the rows: a cap under it frees nothing there.
    const ranges: RowRange[] = [[Math.max(this.unalignedTailStart(eff), cpl), Math.max(eff, cpl)]];
    if (tailStart !== null) ranges.push([tailStart, kvLen]);
    this.freeRowRanges(req, ranges);
  }

  /** Classic path (older RadixCache, with the Mamba cache's cap rule). */
  protected finishClassic(req: Req, row: Int32Array, kvLen: number, cap: number | null): void {
    const cpl = req.kv.cacheProtectedLen;
    let len = kvLen;
    if (cap !== null && cap < kvLen) {
      if (cap % this.pageSize !== 0) {
        throw new PageSplitError(`It is required cache_len=${cap}, page_aligned_len=${floorToPage(cap, this.pageSize)}: a cap must sit on the tree page ${this.pageSize}`);
      }
      const tailStart = Math.max(cap, cpl);
      if (tailStart < kvLen) this.allocator.free(row.slice(tailStart, kvLen));
      len = cap;
    }
    const keys = floorToPage(len, this.pageSize);
    const prefixLen = this.tree.insert({ tokens: Array.prototype.slice.call(req.tokens, 0, keys) as number[], extraKey: req.extraKey }, row.slice(0, keys));
    if (prefixLen > cpl) this.allocator.free(row.slice(cpl, prefixLen));
    const tailFrom = Math.max(keys, cpl);
    if (len > tailFrom) this.allocator.free(row.slice(tailFrom, len));
  }

  /** Where the deferred truncation tail starts: never inside the tree-owned prefix. */
  protected truncationTailStart(eff: number, cacheProtectedLen: number): number {
    return Math.max(eff, cacheProtectedLen);
  }

  /** What the tree keeps of an effective length: whole TREE pages. */
  protected cachedLength(eff: number): number {
    return floorToPage(eff, this.pageSize);
  }

  /** Where the unaligned tail the tree does not keep starts: the tree page below `eff`, as {@link RadixCache.cachedLength}. */
  protected unalignedTailStart(eff: number): number {
    return floorToPage(eff, this.pageSize);
  }

  /** Over-allocation starts at the next ALLOCATOR page boundary. */
  protected overallocatedStart(committed: number): number {
    return ceilToPage(committed, this.pageSize);
  }

  /** The grid the SWA floor is aligned to: the allocator page. */
  protected swaFloorPageSize(): number {
    return this.pageSize;
  }

  /** Every range of one release in one `freeKvRow`: coalesced, split at the SWA floor, given back as segments. */
  protected freeRowRanges(req: Req, ranges: readonly RowRange[]): void {
    const kv = req.kv;
    const segments = segmentsOfRanges(this.reqToToken.row(kv.reqPoolIdx), this.coalesce(ranges, kv.kvAllocatedLen));
    freeKvRowSegments(this.allocator, segments, kv.swaEvictedSeqlen);
  }

  /** Exactly-adjacent ranges merged, so a split inside a page gives that page back once. */
  protected coalesce(ranges: readonly RowRange[], rowLength: number): RowRange[] {
    return coalesceRanges(ranges, rowLength);
  }

  /** {@link checkReq}, and the request must not be finished yet. */
  private checkRunning(req: Req, call: string): void {
    if (req.finished === true) throw new RequestStateError(`request ${req.id}: ${call} after cacheFinishedReq (row ${req.kv.reqPoolIdx}); a request finishes once`);
    this.checkReq(req);
  }

  private checkReq(req: Req): void {
    checkReqKvInfo(req.kv, this.pageSize, this.reqToToken.rowLength);
    if (req.tokens.length < req.kv.kvCommittedLen) {
      throw new RequestStateError(`request ${req.id}: ${req.tokens.length} tokens known, fewer than kvCommittedLen ${req.kv.kvCommittedLen}`);
    }
    // The tree would refuse them at insert, after the classic path has already freed a tail.
    for (let pos = 0; pos < req.kv.kvCommittedLen; pos++) {
      const token = req.tokens[pos] as number;
      if (!Number.isInteger(token) || (token | 0) !== token) throw new CacheConfigError(`request ${req.id}: insert key: token ${token} at position ${pos} is not an int32`);
    }
  }
}
