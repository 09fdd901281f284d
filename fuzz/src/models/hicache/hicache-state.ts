import type { PageLedger } from '../../ledger/page-ledger.js';
import type { RecordingHostPool } from '../../ledger/recording-host-pool.js';
import type { PrefixModel, PrefixReal } from '../prefix-cache/prefix-model-state.js';
import type { HiCacheGeometry } from './hicache-geometry.js';

/** The two-tier model: the lifecycle model's device side plus the host tier. */
export interface HiModel extends PrefixModel {
  readonly geometry: HiCacheGeometry;
  /** Host slot `s` is page `s + 1` here (host slots start at 0). */
  readonly hostLedger: PageLedger;
  /** Host slots the pool must have: (floor(requested / page) + 1) pages. */
  readonly hostSizeExpected: number;
  /** Device-page epochs a write copy read from, by copy id: they must stay held until its ack. */
  readonly copySources: Map<number, { readonly pages: number[]; readonly epochs: number[] }>;
  /** hostContent[slot]: the KV (content hash) a copy left in a host slot. */
  readonly hostContent: Map<number, number>;
}

/** The real side: the HiCache-capable cache and its recording host pool. */
export interface HiReal extends PrefixReal {
  readonly hostPool: RecordingHostPool;
}
