import type { PageAllocator } from '@kvfuzz/allocator-core';
import type { RadixCache, RadixCacheConfig, Req, ReqToTokenPool, TreeNode } from '@kvfuzz/prefix-cache';
import type { OpLabel } from '../../ledger/op-label.js';
import type { PageLedger } from '../../ledger/page-ledger.js';
import type { RecordingAllocator } from '../../ledger/recording-allocator.js';
import type { PrefixGeometry } from './geometry.js';
import type { RowReferences } from './row-references.js';
import type { ContentBySlot } from './slot-contents.js';

/**
 * A live request as the model knows it: the lengths it drove, the token ids, and the content
 * (a rolling hash of the token prefix) each computed position must hold.
 */
export interface LiveRequest {
  readonly req: Req;
  /** The real Req's token array, grown by decode. */
  readonly tokens: number[];
  /** prefixHash[i]: hash of (extraKey, tokens[0..i]); what the KV at position i encodes. */
  readonly prefixHash: number[];
  readonly promptLen: number;
  /** Hash of the empty prefix in this request's extra-key namespace. */
  readonly hashSeed: number;
  /** What the model drove the lengths to; the real record must agree. */
  committed: number;
  allocated: number;
  /** The protected prefix the model expects (from the match, then each chunked-prefill insert). */
  protectedLen: number;
}

/** The model's side: the oracle's knowledge. */
export interface PrefixModel {
  readonly geometry: PrefixGeometry;
  readonly pageSize: number;
  readonly ledger: PageLedger;
  live: LiveRequest[];
  /** Live requests the running command worked on: the check after it looks at these rows only. */
  readonly touched: Set<LiveRequest>;
  /** The pages each live request's row referenced at its last check (held by the ledger's journal to what a command frees). */
  readonly references: RowReferences;
  nextId: number;
  /** slotContent[slot]: the content hash last written to the slot (what a match must find). */
  readonly slotContent: ContentBySlot;
  /** Locks the model took on tree nodes besides the requests' own. */
  extraLocks: TreeNode[];
  executed: number;
}

/** The real side: the cache under test over a recording allocator. */
export interface PrefixReal {
  readonly cache: RadixCache;
  readonly recorder: RecordingAllocator;
  readonly allocator: PageAllocator;
  readonly reqToToken: ReqToTokenPool;
  /** Call the cache's and allocator's own structure checks (the reference only). */
  readonly selfCheck: boolean;
  /** More checks of a model built on this one (the two-tier HiCache model); `wholeStructure` at a quiet point. */
  readonly extraChecks?: (op: OpLabel, wholeStructure: boolean) => void;
}

/** Builds the cache under test; a planted bug swaps in its own subclass. */
export type CacheFactory = (config: RadixCacheConfig) => RadixCache;

/** What a campaign against the request-lifecycle model runs: the cache under test. */
export interface PrefixOptions {
  readonly cache: CacheFactory;
}
