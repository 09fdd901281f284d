import type { HiRadixCache, HiRadixCacheConfig } from '@kvfuzz/hicache';
import type { HostSlotPoolConfig } from '@kvfuzz/host-pool';
import type { PageLedger } from '../../ledger/page-ledger.js';
import type { HostPoolLike, RecordingHostPool } from '../../ledger/recording-host-pool.js';
import type { PrefixModel, PrefixReal } from '../prefix-cache/prefix-model-state.js';
import type { ContentBySlot } from '../prefix-cache/slot-contents.js';
import type { HiCacheGeometry } from './hicache-geometry.js';

/** The HiCache model: the lifecycle model's device side plus the host tier. */
export interface HiCacheModel extends PrefixModel {
  readonly geometry: HiCacheGeometry;
  /** Host slot `s` is page `s + 1` here (host slots start at 0). */
  readonly hostLedger: PageLedger;
  /** Host slots the pool must have: (floor(requested / page) + 1) pages. */
  readonly hostSizeExpected: number;
  /** Device-page epochs a write copy read from, by copy id: they must stay held until its ack. */
  readonly copySources: Map<number, { readonly pages: number[]; readonly epochs: number[] }>;
  /** hostContent[slot]: the KV (content hash) a copy left in a host slot. */
  readonly hostContent: ContentBySlot;
}

/** The real side: the HiCache-capable cache and its recording host pool. */
export interface HiCacheReal extends PrefixReal {
  readonly cache: HiRadixCache;
  readonly hostPool: RecordingHostPool;
}

/** What a planted bug swaps in: the cache, the host pool, or both. */
export interface HiCacheFactories {
  readonly cache?: (config: HiRadixCacheConfig) => HiRadixCache;
  readonly hostPool?: (config: HostSlotPoolConfig) => HostPoolLike;
}

/** What a campaign against the HiCache model runs: the reference, or a planted bug's cache or host pool. */
export interface HiCacheOptions {
  readonly factories: HiCacheFactories;
}
