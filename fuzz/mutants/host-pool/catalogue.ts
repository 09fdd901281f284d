import type { HiCacheGeometry } from '../../src/models/hicache/hicache-geometry.js';
import type { HiCacheFactories } from '../../src/models/hicache/hicache-state.js';
import { EvictHostOrphans, HostPoolFirstFit, HostPoolNoExtraPage, HostPoolUnchecked, InsertCountsRevived, WriteThroughUnlocked } from './host-mutants.js';

/** A planted bug the two-tier model must catch. */
export interface HostPoolMutant {
  readonly name: string;
  readonly mechanism: string;
  readonly factories: HiCacheFactories;
  /** Geometry the bug needs (e.g. write-through, host checks on); the rest is drawn. */
  readonly geometry: Partial<HiCacheGeometry>;
}

export const kHostPoolMutants: readonly HostPoolMutant[] = [
  { name: 'insert-counts-revived', mechanism: 'insert counts revived nodes in prefix_len: the caller frees adopted slots', factories: { cache: (c) => new InsertCountsRevived(c) }, geometry: {} },
  { name: 'write-through-unlocked', mechanism: 'write-through without inc_lock_ref: slots evicted during the copy', factories: { cache: (c) => new WriteThroughUnlocked(c) }, geometry: { writePolicy: 'write_through' } },
  { name: 'evict-host-orphans', mechanism: 'evict_host removes a node with backed-up children', factories: { cache: (c) => new EvictHostOrphans(c) }, geometry: {} },
  { name: 'host-pool-unchecked', mechanism: 'HostKVCache without the slot_used checks', factories: { hostPool: (c) => new HostPoolUnchecked(c) }, geometry: { hostChecks: true } },
  { name: 'host-pool-first-fit', mechanism: 'host alloc first-fit instead of a contiguous run', factories: { hostPool: (c) => new HostPoolFirstFit(c) }, geometry: {} },
  { name: 'host-pool-no-extra-page', mechanism: 'host pool size without the extra page', factories: { hostPool: (c) => new HostPoolNoExtraPage(c) }, geometry: {} },
];

export function findHostPoolMutant(name: string): HostPoolMutant | undefined {
  return kHostPoolMutants.find((m) => m.name === name);
}
