import fc from 'fast-check';
import { lifecycleMixArbitrary, type LifecycleMix } from '../prefix-cache/prefix-commands.js';
import { kSharedPrefixes } from '../prefix-cache/prompts.js';
import type { HiCacheGeometry } from './hicache-geometry.js';

/** Commands per run: lifecycles and tier traffic interleaved. */
export const kHiCacheCommandsMax = 50;

/** Per-run weights of the tier commands (the lifecycle commands keep their own mix). */
export interface TierMix {
  readonly roundTrip: number;
  /** Requests on a shared prefix that run and finish at once: what fills the tree. */
  readonly populate: number;
  readonly hit: number;
  readonly evictDevice: number;
  readonly evictHost: number;
  readonly loadBack: number;
  readonly ack: number;
  readonly clear: number;
  readonly reject: number;
}

export const tierMixArbitrary: fc.Arbitrary<TierMix> = fc.record({
  roundTrip: fc.integer({ min: 0, max: 2 }),
  populate: fc.integer({ min: 1, max: 4 }),
  hit: fc.integer({ min: 1, max: 4 }),
  evictDevice: fc.integer({ min: 1, max: 3 }),
  evictHost: fc.integer({ min: 0, max: 2 }),
  loadBack: fc.integer({ min: 1, max: 3 }),
  ack: fc.integer({ min: 0, max: 4 }),
  clear: fc.constantFrom(0, 0, 0, 1),
  reject: fc.integer({ min: 0, max: 1 }),
});

/** A run's mix: the lifecycle families and the tier families side by side. */
export const hiCacheMixArbitrary: fc.Arbitrary<LifecycleMix & TierMix> = fc.tuple(lifecycleMixArbitrary, tierMixArbitrary).map(([life, tier]) => ({ ...life, ...tier }));

/** One of the shared prefixes the lifecycle's admissions cache. */
export const kSharedPrefixArbitrary = fc.integer({ min: 0, max: kSharedPrefixes - 1 });

/** A whole number of device pages, 0 to 4. */
export function pagesTokensArbitrary(g: HiCacheGeometry): fc.Arbitrary<number> {
  const ps = g.kernelPageSize * g.dcpSize;
  return fc.integer({ min: 0, max: 4 }).map((pages) => pages * ps);
}

/**
 * Shared-prefix lengths long enough to clear the load-back threshold (10 tokens) at every page
 * size, and short enough for a row (`kRowPagesMax` pages): whole pages, up to `extraPagesMax` past the shortest.
 */
export function longTokensArbitrary(g: HiCacheGeometry, extraPagesMax: number): fc.Arbitrary<number> {
  const ps = g.kernelPageSize * g.dcpSize;
  const minPages = Math.ceil(12 / ps);
  return fc.integer({ min: 0, max: extraPagesMax }).map((extra) => Math.min(minPages + extra, 12) * ps);
}

/** A load-back quota: 0 to 16 device pages. */
export function quotaTokensArbitrary(g: HiCacheGeometry): fc.Arbitrary<number> {
  const ps = g.kernelPageSize * g.dcpSize;
  return fc.integer({ min: 0, max: 16 }).map((pages) => pages * ps);
}
