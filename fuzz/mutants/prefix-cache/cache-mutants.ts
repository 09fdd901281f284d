/**
 * Planted bugs in the reference radix cache and its tree, one mechanism each: ways the engine's
 * release path (`common.py`, `free_kv_row`) and radix tree (`radix_cache.py`) can go wrong.
 * Each subclass overrides one protected step; none of this is reachable from the shipped package.
 */
import { floorToPage } from '@kvfuzz/allocator-core';
import type { FreeSegment } from '@kvfuzz/allocator-core';
import { RadixCache, RadixTree, segmentsOfRanges, type Req, type RowRange, type TreeNode } from '@kvfuzz/prefix-cache';

/** `free_kv_row` without coalescing (as `base_prefix_cache.py` shipped it at 00ac7105): the DCP seam crashes. */
export class NoCoalescing extends RadixCache {
  protected override coalesce(ranges: readonly RowRange[]): RowRange[] {
    return ranges.filter(([start, end]) => end > start);
  }
}

/** Coalescing that also merges across a gap of up to a page: frees rows between the ranges. */
export class CoalesceAcrossGaps extends RadixCache {
  protected override coalesce(ranges: readonly RowRange[], rowLength: number): RowRange[] {
    const merged: [number, number][] = [];
    for (const [start, end] of super.coalesce(ranges, rowLength)) {
      const last = merged[merged.length - 1];
      if (last !== undefined && start <= last[1] + this.pageSize) last[1] = end;
      else merged.push([start, end]);
    }
    return merged;
  }
}

/** The pre-segment era: each range given back by its own plain `free`, no coalescing, no page-disjointness check. */
export class SeparatePlainFrees extends RadixCache {
  protected override freeRowRanges(req: Req, ranges: readonly RowRange[]): void {
    const row = this.reqToToken.row(req.kv.reqPoolIdx);
    for (const [start, end] of ranges) if (end > start) this.allocator.free(row.slice(start, end));
  }
}

/** The over-allocation free aligned to the KERNEL page: shares a page with the tail free. */
export class OverallocKernelAligned extends RadixCache {
  protected override overallocatedStart(committed: number): number {
    return Math.ceil(committed / this.kernelPageSize) * this.kernelPageSize;
  }
}

/** The deferred truncation tail starts at `eff`, not `max(eff, cacheProtectedLen)`: frees tree-owned rows. */
export class TailFromEff extends RadixCache {
  protected override truncationTailStart(eff: number): number {
    return eff;
  }
}

/** The unaligned tail starts on the KERNEL page below `eff`, not the tree page. */
export class UnalignedTailKernelFloor extends RadixCache {
  protected override unalignedTailStart(eff: number): number {
    return floorToPage(eff, this.kernelPageSize);
  }
}

/** The SWA floor on the kernel grid and the split assertion gone: a page split between the dead and alive calls. */
export class SwaFloorUnchecked extends RadixCache {
  protected override swaFloorPageSize(): number {
    return this.kernelPageSize;
  }

  protected override freeRowRanges(req: Req, ranges: readonly RowRange[]): void {
    const kv = req.kv;
    const e = kv.swaEvictedSeqlen;
    const dead: FreeSegment[] = [];
    const alive: FreeSegment[] = [];
    for (const segment of segmentsOfRanges(this.reqToToken.row(kv.reqPoolIdx), this.coalesce(ranges, kv.kvAllocatedLen))) {
      const indices = Array.from(segment.indices);
      const end = segment.startPos + indices.length;
      if (indices.length === 0) continue;
      if (end <= e) dead.push(segment);
      else if (segment.startPos >= e) alive.push(segment);
      else {
        dead.push({ indices: indices.slice(0, e - segment.startPos), startPos: segment.startPos });
        alive.push({ indices: indices.slice(e - segment.startPos), startPos: e });
      }
    }
    if (dead.length > 0) this.allocator.freeSegments(dead);
    if (alive.length > 0) this.allocator.freeSegments(alive);
  }
}

/** The finish forgets the unaligned tail: a leak at quiescence. */
export class FinishForgetsTail extends RadixCache {
  protected override freeRowRanges(req: Req, ranges: readonly RowRange[]): void {
    super.freeRowRanges(req, ranges.length > 1 ? ranges.slice(1) : ranges);
  }
}

/** `decLockRef` without the 1 → 0 size transfer: evictable/protected drift. */
class TreeUnlockNoTransfer extends RadixTree {
  protected override decLockRefStep(node: TreeNode): number {
    node.lockRef -= 1;
    return 0;
  }
}
export class UnlockNoTransfer extends RadixCache {
  protected override createTree(config: ConstructorParameters<typeof RadixTree>[0]): RadixTree {
    return new TreeUnlockNoTransfer(config);
  }
}

/** A split that does not copy the lock count to the new parent: a locked path looks unlocked. */
class TreeSplitDropsLock extends RadixTree {
  protected override splitNode(child: TreeNode, k: number): TreeNode {
    const parent = super.splitNode(child, k);
    parent.lockRef = 0;
    return parent;
  }
}
export class SplitDropsLock extends RadixCache {
  protected override createTree(config: ConstructorParameters<typeof RadixTree>[0]): RadixTree {
    return new TreeSplitDropsLock(config);
  }
}

/** `matchPrefix` without the page truncation: an unaligned protected prefix. */
class TreeMatchUntruncated extends RadixTree {
  protected override pageAlignedLength(tokenCount: number): number {
    return tokenCount;
  }
}
export class MatchUntruncated extends RadixCache {
  protected override createTree(config: ConstructorParameters<typeof RadixTree>[0]): RadixTree {
    return new TreeMatchUntruncated(config);
  }
}
