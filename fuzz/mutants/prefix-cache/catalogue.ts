import type { RadixCache, RadixCacheConfig } from '@kvfuzz/prefix-cache';
import type { PrefixGeometry } from '../../src/models/prefix-cache/geometry.js';
import {
  CoalesceAcrossGaps,
  FinishForgetsTail,
  MatchUntruncated,
  NoCoalescing,
  OverallocKernelAligned,
  SeparatePlainFrees,
  SplitDropsLock,
  SwaFloorUnchecked,
  TailFromEff,
  UnalignedTailKernelFloor,
  UnlockNoTransfer,
} from './cache-mutants.js';

/** A planted bug the request-lifecycle model must catch. */
export interface PrefixCacheMutant {
  readonly name: string;
  readonly mechanism: string;
  readonly create: (config: RadixCacheConfig) => RadixCache;
  /** Geometry the bug needs to show (e.g. the unified finish path); the rest is drawn. */
  readonly geometry: Partial<PrefixGeometry>;
}

const unified: Partial<PrefixGeometry> = { finishPath: 'unified' };

/**
 * Every prefix-cache mutant: the release path's bugs (`free_kv_row` and its coalescing in
 * `common.py`, the over-allocation and truncation tails, the SWA floor, the finish), then the radix
 * tree's (`radix_cache.py`: lock counts, split, match truncation).
 */
export const kPrefixCacheMutants: readonly PrefixCacheMutant[] = [
  { name: 'no-coalescing', mechanism: 'free_kv_row without coalescing: the DCP seam crashes', create: (c) => new NoCoalescing(c), geometry: unified },
  { name: 'coalesce-across-gaps', mechanism: 'coalescing also merges ranges a page apart, freeing the rows between', create: (c) => new CoalesceAcrossGaps(c), geometry: unified },
  { name: 'separate-plain-frees', mechanism: 'each range its own plain free, no page-disjointness check: a seam page released twice', create: (c) => new SeparatePlainFrees(c), geometry: unified },
  { name: 'overalloc-kernel-aligned', mechanism: 'over-allocation freed from the kernel page, sharing a page with the tail', create: (c) => new OverallocKernelAligned(c), geometry: {} },
  { name: 'tail-from-eff', mechanism: 'deferred truncation tail starts at eff, inside the tree-owned prefix', create: (c) => new TailFromEff(c), geometry: unified },
  { name: 'unaligned-tail-kernel-floor', mechanism: 'unaligned tail starts on the kernel page below eff', create: (c) => new UnalignedTailKernelFloor(c), geometry: unified },
  { name: 'swa-floor-unchecked', mechanism: 'SWA floor on the kernel grid, split assertion removed', create: (c) => new SwaFloorUnchecked(c), geometry: {} },
  { name: 'finish-forgets-tail', mechanism: 'the finish gives back only its first range: a leak', create: (c) => new FinishForgetsTail(c), geometry: unified },
  { name: 'unlock-no-transfer', mechanism: 'decLockRef without the 1 → 0 size transfer', create: (c) => new UnlockNoTransfer(c), geometry: {} },
  { name: 'split-drops-lock', mechanism: 'a split does not copy the lock count to the new parent', create: (c) => new SplitDropsLock(c), geometry: {} },
  { name: 'match-untruncated', mechanism: 'matchPrefix does not truncate to whole pages', create: (c) => new MatchUntruncated(c), geometry: {} },
];

export function findPrefixCacheMutant(name: string): PrefixCacheMutant | undefined {
  return kPrefixCacheMutants.find((m) => m.name === name);
}
