import { describe, expect, it } from 'vitest';
import { CacheConfigError } from './errors.js';
import { evictionOrder, isEvictionPolicy, kEvictionPolicies, type EvictionPolicy } from './eviction-policy.js';
import { TreeNode } from './tree-node.js';

function node(id: number, fields: Partial<Pick<TreeNode, 'lastAccessTime' | 'creationTime' | 'hitCount' | 'priority'>>): TreeNode {
  const made = new TreeNode(id, null, new Int32Array([id]), null, new Int32Array([id]));
  Object.assign(made, fields);
  return made;
}

// a: accessed 5, created 1, 2 hits, priority 1; b: 2, 2, 0, 3; c: 6, 3, 1, 2 — each policy gives a different order.
const a = node(1, { lastAccessTime: 5, creationTime: 1, hitCount: 2, priority: 1 });
const b = node(2, { lastAccessTime: 2, creationTime: 2, hitCount: 0, priority: 3 });
const c = node(3, { lastAccessTime: 6, creationTime: 3, hitCount: 1, priority: 2 });

describe('prefix-cache:eviction-policy,order', () => {
  it.each<[EvictionPolicy, TreeNode[]]>([
    ['lru', [b, a, c]],
    ['lfu', [b, c, a]],
    ['fifo', [a, b, c]],
    ['mru', [c, a, b]],
    ['filo', [c, b, a]],
    ['priority', [a, c, b]],
  ])('%s sorts the three nodes into its order', (policy, expectOrder) => {
    expect([c, b, a].sort(evictionOrder(policy)).map((n) => n.id)).toEqual(expectOrder.map((n) => n.id));
  });

  it.each(kEvictionPolicies.map((policy) => [policy]))('%s breaks ties by node id', (policy) => {
    const fields = { lastAccessTime: 4, creationTime: 4, hitCount: 1, priority: 0 };
    expect([node(9, fields), node(4, fields), node(6, fields)].sort(evictionOrder(policy)).map((n) => n.id)).toEqual([4, 6, 9]);
  });

  it('lfu and priority fall back to last access before the id', () => {
    const early = node(8, { lastAccessTime: 1, hitCount: 1, priority: 2 });
    const late = node(2, { lastAccessTime: 7, hitCount: 1, priority: 2 });
    expect([late, early].sort(evictionOrder('lfu'))).toEqual([early, late]);
    expect([late, early].sort(evictionOrder('priority'))).toEqual([early, late]);
  });

  it('priority handles infinite priorities without NaN', () => {
    const low = node(5, { priority: Number.NEGATIVE_INFINITY });
    const high = node(1, { priority: Number.POSITIVE_INFINITY });
    expect([high, low].sort(evictionOrder('priority'))).toEqual([low, high]);
  });
});

describe('prefix-cache:eviction-policy,names', () => {
  it('knows the six modelled policies and nothing else', () => {
    expect(kEvictionPolicies).toEqual(['lru', 'lfu', 'fifo', 'mru', 'filo', 'priority']);
    expect(kEvictionPolicies.every(isEvictionPolicy)).toBe(true);
    for (const name of ['slru', 'LRU', '', undefined, 3]) expect(isEvictionPolicy(name)).toBe(false);
  });

  it('refuses an unknown policy with CacheConfigError naming it', () => {
    expect(() => evictionOrder('slru' as EvictionPolicy)).toThrow(CacheConfigError);
    expect(() => evictionOrder('slru' as EvictionPolicy)).toThrow("Unknown eviction policy: 'slru'");
  });
});
