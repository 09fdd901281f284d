import type { ReqKvInfo } from './req-kv-info.js';
import type { TreeNode } from './tree-node.js';

/** What a prefix cache needs to know of a request. */
export interface Req {
  /** For messages. */
  readonly id: number;
  /** Token ids of the whole sequence so far (prompt and generated); at least `kvCommittedLen` long. */
  readonly tokens: ArrayLike<number>;
  /** Namespace: requests with different extra keys never share cached prefixes. */
  readonly extraKey: string | null;
  readonly kv: ReqKvInfo;
  /** The tree node the request holds a lock on (the end of its cached prefix); null for a chunk cache. */
  lastNode: TreeNode | null;
  /**
   * Set by the cache's `cacheFinishedReq`; a finished request is refused by every later call but
   * `releaseOverallocated` (finishing twice would give the tree's pages back). Absent: running.
   */
  finished?: boolean;
}

/** Options of a finish. */
export interface FinishOptions {
  /**
   * A component's cap on what may be cached (e.g. a Mamba track boundary), in tokens, on the
   * kernel grid; `null` for none. Tokens past the cap are given back, not cached.
   * @defaultValue null
   */
  readonly capTokens?: number | null;
  /**
   * Insert the request's pages into the tree (false: give back everything it owns).
   * @defaultValue true
   */
  readonly insert?: boolean;
}

/** The common face of the radix cache and the chunk cache. */
export interface PrefixCache {
  /** The longest cached prefix of `tokens` (page multiple) and the node it ends at. */
  matchPrefix(tokens: ArrayLike<number>, extraKey: string | null): { readonly indices: Int32Array; readonly lastNode: TreeNode | null };
  /** Locks a matched node so eviction keeps it while a request uses it. */
  lock(node: TreeNode | null): void;
  /** Caches what a finished request computed and gives back the rest of its row. */
  cacheFinishedReq(req: Req, options?: FinishOptions): void;
  /** Caches a chunked prefill's progress; the request keeps running. */
  cacheUnfinishedReq(req: Req): void;
  /** Evicts at least `numTokens` unlocked tokens (fewer when there are not enough); returns how many. */
  evict(numTokens: number): number;
  evictableSize(): number;
  protectedSize(): number;
  totalSize(): number;
}
