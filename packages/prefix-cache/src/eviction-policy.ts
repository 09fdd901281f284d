/**
 * Eviction policies of the radix tree (the engine's `evict_policy.py`): each orders the
 * evictable leaves, and the smallest is evicted first.
 *
 * @packageDocumentation
 */
import { CacheConfigError } from './errors.js';
import type { TreeNode } from './tree-node.js';

/**
 * Which evictable leaf goes first. `lru` oldest last access; `lfu` fewest hits, then oldest
 * access; `fifo` oldest creation; `mru` newest access; `filo` newest creation; `priority`
 * lowest priority, then oldest access. (The engine's `slru` is not modelled.)
 */
export type EvictionPolicy = 'lru' | 'lfu' | 'fifo' | 'mru' | 'filo' | 'priority';

/** Every policy kvfuzz models, in the engine's documentation order (for arbitraries and sweeps). */
export const kEvictionPolicies: readonly EvictionPolicy[] = Object.freeze(['lru', 'lfu', 'fifo', 'mru', 'filo', 'priority'] as const);

/** Orders two nodes: negative when `a` is evicted before `b`. */
export type EvictionOrder = (a: TreeNode, b: TreeNode) => number;

// Each order compares the policy's key first and the node id last, so that two nodes with equal
// keys always leave in the same order and a fuzz run replays exactly.
const kOrders: Readonly<Record<EvictionPolicy, EvictionOrder>> = {
  lru: (a, b) => a.lastAccessTime - b.lastAccessTime || a.id - b.id,
  lfu: (a, b) => a.hitCount - b.hitCount || a.lastAccessTime - b.lastAccessTime || a.id - b.id,
  fifo: (a, b) => a.creationTime - b.creationTime || a.id - b.id,
  mru: (a, b) => b.lastAccessTime - a.lastAccessTime || a.id - b.id,
  filo: (a, b) => b.creationTime - a.creationTime || a.id - b.id,
  priority: (a, b) => comparePriority(a.priority, b.priority) || a.lastAccessTime - b.lastAccessTime || a.id - b.id,
};

// Priorities may be ±Infinity (the root's is −Infinity), where plain subtraction gives NaN.
function comparePriority(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether `name` is one of {@link kEvictionPolicies}.
 *
 * @param name - any value.
 */
export function isEvictionPolicy(name: unknown): name is EvictionPolicy {
  return typeof name === 'string' && (kEvictionPolicies as readonly string[]).includes(name);
}

/**
 * The order of a policy, smallest evicted first, ties broken by node id.
 *
 * @param policy - the policy's name.
 * @returns a comparator over tree nodes.
 * @throws CacheConfigError naming the policy when it is unknown ("Unknown eviction policy: 'slru'").
 */
export function evictionOrder(policy: EvictionPolicy): EvictionOrder {
  if (!isEvictionPolicy(policy)) {
    throw new CacheConfigError(`Unknown eviction policy: '${String(policy)}' (known: ${kEvictionPolicies.join(', ')})`);
  }
  return kOrders[policy];
}
