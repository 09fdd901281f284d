import { ArgumentError, InvariantError, PagedAllocator, TokenAllocator } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { CacheConfigError, LockRefError, RequestStateError } from './errors.js';
import type { EvictionPolicy } from './eviction-policy.js';
import { RadixTree } from './radix-tree.js';
import { RecordingAllocator } from './test-support/recording-allocator.js';
import { snapshotTree } from './test-support/tree-snapshot.js';
import type { TreeNode } from './tree-node.js';

// The engine's test_radix_cache_unit.py expectations and the rules of its `radix_cache.py`: keys,
// match, insert and split, locks, sizes and eviction.
// "Simulated, no pools" tests use RecordingAllocator.fake, which accepts any slots; tests that need
// the exactly-once checks wrap a real allocator.

function fakeTree(pageSize = 1, evictionPolicy: EvictionPolicy = 'lru', disabled = false): { tree: RadixTree; allocator: RecordingAllocator } {
  const allocator = RecordingAllocator.fake(pageSize);
  return { tree: new RadixTree({ allocator, evictionPolicy, disabled }), allocator };
}

/** `[first, first + 1, …, last]`. */
function range(first: number, last: number): number[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

function match(tree: RadixTree, tokens: number[], extraKey: string | null = null): number[] {
  return Array.from(tree.matchPrefix({ tokens, extraKey }).indices);
}

/** Runs `call`, expects `errorClass` naming every value of `named`, and the tree and allocator calls unchanged (STYLE rule 18). */
function expectRejected(tree: RadixTree, allocator: RecordingAllocator, call: () => unknown, errorClass: new (...args: never[]) => Error, named: readonly (string | number)[]): void {
  const before = snapshotTree(tree);
  const callsBefore = allocator.calls.length;
  let caught: unknown;
  try {
    call();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(errorClass);
  for (const value of named) expect((caught as Error).message).toContain(String(value));
  expect(snapshotTree(tree)).toEqual(before);
  expect(allocator.calls.length).toBe(callsBefore);
  tree.verifyInvariants();
}

describe('prefix-cache:radix-tree,construct', () => {
  it('takes the allocator page size, defaults to lru and enabled, and starts with a locked empty root', () => {
    const { tree } = fakeTree(4);
    expect(tree.pageSize).toBe(4);
    expect(tree.evictionPolicy).toBe('lru');
    expect(tree.disabled).toBe(false);
    expect(tree.root.key).toHaveLength(0);
    expect(Array.from(tree.root.value ?? [1])).toEqual([]);
    expect(tree.root.lockRef).toBe(1);
    expect([...tree.nodes()]).toEqual([]);
    expect([tree.evictableSize(), tree.protectedSize(), tree.totalSize()]).toEqual([0, 0, 0]);
    tree.verifyInvariants();
  });

  it('refuses an unknown eviction policy, naming it', () => {
    const allocator = RecordingAllocator.fake(1);
    expect(() => new RadixTree({ allocator, evictionPolicy: 'slru' as EvictionPolicy })).toThrow(CacheConfigError);
    expect(() => new RadixTree({ allocator, evictionPolicy: 'slru' as EvictionPolicy })).toThrow(/Unknown eviction policy: 'slru'/);
  });

  it('refuses a missing allocator and a non-boolean disabled', () => {
    expect(() => new RadixTree({ allocator: null as never })).toThrow(CacheConfigError);
    expect(() => new RadixTree({ allocator: RecordingAllocator.fake(1), disabled: 'yes' as never })).toThrow(/disabled yes is not a boolean/);
  });
});

describe('prefix-cache:radix-tree,insert', () => {
  it('insert [1,2,3] → [10,20,30] at page 1: prefixLen 0, total 3, evictable 3', () => {
    const { tree, allocator } = fakeTree(1);
    expect(tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30])).toBe(0);
    expect(tree.totalSize()).toBe(3);
    expect(tree.evictableSize()).toBe(3);
    expect(tree.protectedSize()).toBe(0);
    expect(allocator.calls).toEqual([]);
    tree.verifyInvariants();
  });

  it('a second insert of the same key returns the whole length as prefixLen and adds nothing', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    expect(tree.insert({ tokens: [1, 2, 3] }, [11, 21, 31])).toBe(3);
    expect(tree.totalSize()).toBe(3);
    expect(match(tree, [1, 2, 3])).toEqual([10, 20, 30]);
  });

  it('a diverging insert splits the shared node, counts the shared part, and keeps a copy of its suffix', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    const value = [10, 20, 40, 50];
    expect(tree.insert({ tokens: [1, 2, 4, 5] }, value)).toBe(2);
    value[2] = -1;
    expect(tree.totalSize()).toBe(5);
    expect(tree.evictableSize()).toBe(5);
    expect(match(tree, [1, 2, 4, 5])).toEqual([10, 20, 40, 50]);
    expect([...tree.nodes()].map((node) => Array.from(node.key))).toEqual([[1, 2], [3], [4, 5]]);
    tree.verifyInvariants();
  });

  it('priority propagates as the maximum along the path; a split node keeps its child priority', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30], { priority: 5 });
    tree.insert({ tokens: [1, 2, 4] }, [10, 20, 40], { priority: 2 });
    tree.insert({ tokens: [1, 2, 3, 7] }, [10, 20, 30, 70], { priority: 9 });
    const byKey = new Map([...tree.nodes()].map((node) => [Array.from(node.key).join(','), node.priority]));
    expect(Object.fromEntries(byKey)).toEqual({ '1,2': 9, '3': 9, '7': 9, '4': 2 });
    tree.verifyInvariants();
  });

  it('a disabled tree inserts nothing (returns 0) and matches nothing', () => {
    const { tree, allocator } = fakeTree(1, 'lru', true);
    expect(tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30])).toBe(0);
    expect(tree.totalSize()).toBe(0);
    expect(tree.matchPrefix({ tokens: [1, 2, 3] }).lastNode).toBe(tree.root);
    expect(match(tree, [1, 2, 3])).toEqual([]);
    expect(tree.evict(3)).toBe(0);
    expect(allocator.calls).toEqual([]);
  });

  it('extraKey isolation: the same tokens in two namespaces never share a node', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3], extraKey: 'a' }, [10, 20, 30]);
    expect(match(tree, [1, 2, 3], 'b')).toEqual([]);
    expect(match(tree, [1, 2, 3])).toEqual([]);
    expect(match(tree, [1, 2, 3], 'a')).toEqual([10, 20, 30]);
    expect(tree.insert({ tokens: [1, 2, 3], extraKey: 'b' }, [11, 21, 31])).toBe(0);
    expect(tree.insert({ tokens: [1, 2, 3] }, [12, 22, 32])).toBe(0);
    expect(tree.insert({ tokens: [1, 2, 3], extraKey: '' }, [13, 23, 33])).toBe(0);
    expect(tree.root.children.size).toBe(4);
    expect(tree.totalSize()).toBe(12);
    expect(match(tree, [1, 2], 'b')).toEqual([11, 21]);
    tree.verifyInvariants();
  });

  it('refuses key and value of different lengths, naming both', () => {
    const { tree, allocator } = fakeTree(1);
    tree.insert({ tokens: [1] }, [10]);
    expectRejected(tree, allocator, () => tree.insert({ tokens: [1, 2, 3] }, [10, 20]), CacheConfigError, ['3 tokens', '2 slots']);
  });

  it('refuses a length that is not a page multiple: 5 and 6 at page 4, 3 at page 2; accepts 8 and 4 (control)', () => {
    const page4 = fakeTree(4);
    expectRejected(page4.tree, page4.allocator, () => page4.tree.insert({ tokens: range(1, 5) }, range(8, 12)), CacheConfigError, ['5 tokens', 'page size 4']);
    expectRejected(page4.tree, page4.allocator, () => page4.tree.insert({ tokens: range(1, 6) }, range(8, 13)), CacheConfigError, ['6 tokens', 'page size 4']);
    expect(page4.tree.insert({ tokens: range(1, 8) }, range(8, 15))).toBe(0);
    const page2 = fakeTree(2);
    expectRejected(page2.tree, page2.allocator, () => page2.tree.insert({ tokens: [1, 2, 3] }, [8, 9, 10]), CacheConfigError, ['3 tokens', 'page size 2']);
    expect(page2.tree.insert({ tokens: [1, 2, 3, 4] }, [8, 9, 10, 11])).toBe(0);
  });

  it('refuses tokens that are not int32 and slots that are not non-negative int32', () => {
    const { tree, allocator } = fakeTree(1);
    expectRejected(tree, allocator, () => tree.insert({ tokens: [1, 2.5] }, [10, 20]), CacheConfigError, ['token 2.5', 'position 1']);
    expectRejected(tree, allocator, () => tree.insert({ tokens: [1, 2 ** 31] }, [10, 20]), CacheConfigError, [String(2 ** 31)]);
    expectRejected(tree, allocator, () => tree.insert({ tokens: [1, 2] }, [10, -1]), ArgumentError, ['slot -1', 'position 1']);
    expectRejected(tree, allocator, () => tree.insert({ tokens: [1, 2] }, [10, 20], { priority: Number.NaN }), ArgumentError, ['priority NaN']);
    expectRejected(tree, allocator, () => tree.insert({ tokens: [1], extraKey: 7 as never }, [10]), CacheConfigError, ['extraKey 7']);
  });
});

describe('prefix-cache:radix-tree,match', () => {
  it('matches the full key and a partial key; a miss returns the root', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    const full = tree.matchPrefix({ tokens: [1, 2, 3] });
    expect(Array.from(full.indices)).toEqual([10, 20, 30]);
    expect(Array.from(full.lastNode.key)).toEqual([1, 2, 3]);
    const partial = tree.matchPrefix({ tokens: [1, 2, 9] });
    expect(Array.from(partial.indices)).toEqual([10, 20]);
    expect(Array.from(partial.lastNode.key)).toEqual([1, 2]);
    expect(tree.totalSize()).toBe(3);
    const miss = tree.matchPrefix({ tokens: [7] });
    expect(miss.indices).toHaveLength(0);
    expect(miss.lastNode).toBe(tree.root);
    expect(tree.matchPrefix({ tokens: [] }).lastNode).toBe(tree.root);
    tree.verifyInvariants();
  });

  it.each([
    [1, 5, 5],
    [2, 5, 4],
    [4, 6, 4],
  ])('page alignment: page %i, a query of %i tokens matches %i (a page multiple)', (pageSize, queryLen, expectLen) => {
    const { tree } = fakeTree(pageSize);
    const tokens = range(1, 8);
    const slots = range(16, 23);
    tree.insert({ tokens }, slots);
    const indices = match(tree, tokens.slice(0, queryLen));
    expect(indices).toEqual(slots.slice(0, expectLen));
    expect(indices.length % pageSize).toBe(0);
    tree.verifyInvariants();
  });

  it('page 2: a query shorter than one page, or differing inside the first page, matches nothing', () => {
    const { tree } = fakeTree(2);
    tree.insert({ tokens: [1, 2, 3, 4] }, [8, 9, 10, 11]);
    expect(match(tree, [1])).toEqual([]);
    expect(match(tree, [1, 9, 3, 4])).toEqual([]);
    expect(match(tree, [1, 2, 3, 9])).toEqual([8, 9]);
  });

  it('split on match keeps the total size (10) and returns val1[:4], then val1[:6] (page 2)', () => {
    const { tree } = fakeTree(2);
    const key1 = range(1, 10);
    const val1 = range(20, 29);
    tree.insert({ tokens: key1 }, val1);
    expect(match(tree, [...key1.slice(0, 4), 99, 99])).toEqual(val1.slice(0, 4));
    expect(tree.totalSize()).toBe(10);
    expect(match(tree, [...key1.slice(0, 6), 99, 99])).toEqual(val1.slice(0, 6));
    expect(tree.totalSize()).toBe(10);
    expect(tree.evictableSize()).toBe(10);
    expect([...tree.nodes()].map((node) => node.key.length)).toEqual([4, 2, 4]);
    tree.verifyInvariants();
  });

  it('a split copies the lock count, priority and hits to the new upper node, and the match counts a hit on it only', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3, 4] }, [10, 20, 30, 40], { priority: 3 });
    const node = tree.matchPrefix({ tokens: [1, 2, 3, 4] }).lastNode;
    tree.incLockRef(node);
    const upper = tree.matchPrefix({ tokens: [1, 2, 9] }).lastNode;
    expect(Array.from(upper.key)).toEqual([1, 2]);
    expect(upper.lockRef).toBe(1);
    expect(upper.priority).toBe(3);
    expect(upper.hitCount).toBe(2);
    expect(node.hitCount).toBe(1);
    expect(node.parent).toBe(upper);
    expect(tree.protectedSize()).toBe(4);
    tree.verifyInvariants();
    expect(tree.decLockRef(node)).toBe(4);
    tree.verifyInvariants();
  });

  it('stamps every visited node with the logical clock, one tick per match or insert', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2] }, [10, 20]);
    tree.insert({ tokens: [1, 3] }, [10, 30]);
    expect(tree.logicalTime).toBe(2);
    tree.matchPrefix({ tokens: [1, 3] });
    const times = Object.fromEntries([...tree.nodes()].map((node) => [Array.from(node.key).join(','), [node.creationTime, node.lastAccessTime]]));
    expect(times).toEqual({ '1': [2, 3], '2': [1, 2], '3': [2, 3] });
  });
});

describe('prefix-cache:radix-tree,insert-prev-prefix', () => {
  // Page 2: A = [1..8] is cached as two nodes, [1..4] and [5..8]; a request that protected only
  // the first page (prevPrefixLen 2) then inserts A + [60, 61] with its own slots beyond page 1.
  function twoNodeTree(): { tree: RadixTree; allocator: RecordingAllocator } {
    const made = fakeTree(2);
    made.tree.insert({ tokens: range(1, 4) }, range(100, 103));
    made.tree.insert({ tokens: range(1, 8) }, range(100, 107));
    return made;
  }
  const requestValue = [100, 101, ...range(200, 207)];
  const requestKey = [...range(1, 8), 60, 61];

  it('frees exactly the duplicates beyond prevPrefixLen, one segment per matched node, in ONE freeSegments call', () => {
    const { tree, allocator } = twoNodeTree();
    expect(tree.insert({ tokens: requestKey }, requestValue, { prevPrefixLen: 2 })).toBe(8);
    expect(allocator.calls).toEqual([
      {
        op: 'freeSegments',
        segments: [
          { slots: [200, 201], startPos: 2 },
          { slots: [202, 203, 204, 205], startPos: 4 },
        ],
      },
    ]);
    // The new leaf holds the request's own slots for [8, 10).
    expect(match(tree, requestKey)).toEqual([...range(100, 107), 206, 207]);
    expect(tree.totalSize()).toBe(10);
    tree.verifyInvariants();
  });

  it('a prevPrefixLen inside the second node starts the segment there (startPos 6)', () => {
    const { tree, allocator } = twoNodeTree();
    const value = [...range(100, 105), ...range(206, 209)];
    expect(tree.insert({ tokens: requestKey }, value, { prevPrefixLen: 6 })).toBe(8);
    expect(allocator.calls).toEqual([{ op: 'freeSegments', segments: [{ slots: [206, 207], startPos: 6 }] }]);
  });

  it('frees nothing when prevPrefixLen covers every duplicate (8, 10, 12)', () => {
    for (const prevPrefixLen of [8, 10, 12]) {
      const { tree, allocator } = twoNodeTree();
      const value = [...range(100, 107), 208, 209];
      expect(tree.insert({ tokens: requestKey }, value, { prevPrefixLen })).toBe(8);
      expect(allocator.calls).toEqual([]);
      expect(tree.totalSize()).toBe(10);
    }
  });

  it('without prevPrefixLen frees nothing (the classic path: the caller frees the duplicates)', () => {
    const { tree, allocator } = twoNodeTree();
    expect(tree.insert({ tokens: requestKey }, requestValue)).toBe(8);
    expect(allocator.calls).toEqual([]);
  });

  it('refuses a prevPrefixLen that is not a non-negative page multiple (3, -2, 1.5); accepts 0 and 4 (control)', () => {
    const { tree, allocator } = twoNodeTree();
    for (const prevPrefixLen of [3, -2, 1.5]) {
      expectRejected(tree, allocator, () => tree.insert({ tokens: requestKey }, requestValue, { prevPrefixLen }), RequestStateError, [`prevPrefixLen ${prevPrefixLen}`, 'page aligned']);
    }
    expect(tree.insert({ tokens: requestKey }, requestValue, { prevPrefixLen: 4 })).toBe(8);
    expect(tree.insert({ tokens: [...range(1, 8), 60, 61] }, range(300, 309), { prevPrefixLen: 0 })).toBe(10);
  });

  it('with a real paged allocator the duplicates go back and the checks see each page once', () => {
    const inner = new PagedAllocator({ sizeTokens: 64, kernelPageSize: 2, dcpSize: 1, needSort: false, checks: true });
    const allocator = RecordingAllocator.wrapping(inner);
    const tree = new RadixTree({ allocator });
    const first = allocator.alloc(8) as Int32Array;
    tree.insert({ tokens: range(1, 8) }, first);
    const second = allocator.alloc(10) as Int32Array;
    expect(inner.availableSize()).toBe(64 - 18);
    expect(tree.insert({ tokens: [...range(1, 8), 60, 61] }, second, { prevPrefixLen: 0 })).toBe(8);
    expect(inner.availableSize()).toBe(64 - 10);
    expect(tree.evict(10)).toBe(10);
    expect(inner.availableSize()).toBe(64);
    inner.verifyInvariants();
  });
});

describe('prefix-cache:radix-tree,locks', () => {
  it('lock/unlock moves 3 tokens between evictable and protected', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    const { lastNode } = tree.matchPrefix({ tokens: [1, 2, 3] });
    expect(tree.incLockRef(lastNode)).toBe(-3);
    expect([tree.evictableSize(), tree.protectedSize()]).toEqual([0, 3]);
    tree.verifyInvariants();
    expect(tree.decLockRef(lastNode)).toBe(3);
    expect([tree.evictableSize(), tree.protectedSize()]).toEqual([3, 0]);
    tree.verifyInvariants();
  });

  it('locks the ancestors too, and only the 0 → 1 and 1 → 0 steps move tokens', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    tree.insert({ tokens: [1, 2, 4, 5] }, [10, 20, 40, 50]);
    const deep = tree.matchPrefix({ tokens: [1, 2, 4, 5] }).lastNode;
    const shallow = tree.matchPrefix({ tokens: [1, 2] }).lastNode;
    expect(tree.incLockRef(deep)).toBe(-4);
    expect(tree.incLockRef(shallow)).toBe(0);
    expect(shallow.lockRef).toBe(2);
    expect([tree.evictableSize(), tree.protectedSize()]).toEqual([1, 4]);
    expect(tree.decLockRef(deep)).toBe(2);
    expect([tree.evictableSize(), tree.protectedSize()]).toEqual([3, 2]);
    expect(tree.decLockRef(shallow)).toBe(2);
    expect([tree.evictableSize(), tree.protectedSize()]).toEqual([5, 0]);
    tree.verifyInvariants();
  });

  it('locking or unlocking the root is a no-op returning 0', () => {
    const { tree } = fakeTree(1);
    expect(tree.incLockRef(tree.root)).toBe(0);
    expect(tree.decLockRef(tree.root)).toBe(0);
    expect(tree.root.lockRef).toBe(1);
  });

  it('decLockRef underflow throws LockRefError and changes nothing (sizes and lock counts)', () => {
    const { tree, allocator } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    tree.insert({ tokens: [1, 2, 4] }, [10, 20, 40]);
    const { lastNode } = tree.matchPrefix({ tokens: [1, 2, 3] });
    expectRejected(tree, allocator, () => tree.decLockRef(lastNode), LockRefError, [`node ${lastNode.id}`, 'lockRef 0']);
    tree.incLockRef(lastNode);
    tree.decLockRef(lastNode);
    expectRejected(tree, allocator, () => tree.decLockRef(lastNode), LockRefError, [`decLockRef(node ${lastNode.id})`]);
  });

  it('an ancestor at 0 refuses the unlock before the node itself is touched', () => {
    const { tree, allocator } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    tree.insert({ tokens: [1, 2, 4] }, [10, 20, 40]);
    const leaf = tree.matchPrefix({ tokens: [1, 2, 3] }).lastNode;
    const upper = leaf.parent as TreeNode;
    // Reachable only through a bug elsewhere: a child holds a lock its parent lost.
    leaf.lockRef = 1;
    const before = snapshotTree(tree);
    expect(() => tree.decLockRef(leaf)).toThrow(LockRefError);
    expect(() => tree.decLockRef(leaf)).toThrow(`its ancestor node ${upper.id}`);
    expect(snapshotTree(tree)).toEqual(before);
    expect(allocator.calls).toEqual([]);
  });

  it('refuses nodes of another tree, evicted nodes and nodes from before a reset', () => {
    const { tree, allocator } = fakeTree(1);
    const other = fakeTree(1).tree;
    other.insert({ tokens: [1] }, [10]);
    const foreign = other.matchPrefix({ tokens: [1] }).lastNode;
    expectRejected(tree, allocator, () => tree.incLockRef(foreign), LockRefError, ['another tree']);
    tree.insert({ tokens: [5] }, [50]);
    const evicted = tree.matchPrefix({ tokens: [5] }).lastNode;
    tree.evict(1);
    expect(evicted.parent).toBeNull();
    expectRejected(tree, allocator, () => tree.incLockRef(evicted), LockRefError, [`node ${evicted.id}`]);
    tree.insert({ tokens: [6] }, [60]);
    const stale = tree.matchPrefix({ tokens: [6] }).lastNode;
    tree.reset();
    expect(() => tree.decLockRef(stale)).toThrow(LockRefError);
  });
});

describe('prefix-cache:radix-tree,evict', () => {
  it('evicts at least the requested tokens and gives each node back with one plain free', () => {
    const { tree, allocator } = fakeTree(1);
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    tree.insert({ tokens: [4, 5] }, [40, 50]);
    expect(tree.evict(1)).toBe(3);
    expect(allocator.calls).toEqual([{ op: 'free', slots: [10, 20, 30] }]);
    expect(tree.totalSize()).toBe(2);
    expect(match(tree, [1, 2, 3])).toEqual([]);
    tree.verifyInvariants();
  });

  it('over-evicts by at most one node: one 5-token node for 1 token requested', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: range(1, 5) }, range(11, 15));
    tree.insert({ tokens: [9] }, [90]);
    tree.matchPrefix({ tokens: [9] });
    expect(tree.evict(1)).toBe(5);
    expect(tree.totalSize()).toBe(1);
  });

  it('evicting a leaf exposes its parent, which goes in the same call', () => {
    const { tree, allocator } = fakeTree(1);
    tree.insert({ tokens: [1, 2] }, [10, 20]);
    tree.insert({ tokens: [1, 3] }, [10, 30]);
    expect(tree.evict(3)).toBe(3);
    expect(allocator.calls).toEqual([
      { op: 'free', slots: [20] },
      { op: 'free', slots: [30] },
      { op: 'free', slots: [10] },
    ]);
    expect(tree.totalSize()).toBe(0);
    expect(tree.nodeCount()).toBe(0);
    tree.verifyInvariants();
  });

  it('never evicts a locked node or its ancestors', () => {
    const { tree, allocator } = fakeTree(1);
    tree.insert({ tokens: [1, 2] }, [10, 20]);
    tree.insert({ tokens: [1, 3] }, [10, 30]);
    tree.insert({ tokens: [4] }, [40]);
    tree.incLockRef(tree.matchPrefix({ tokens: [1, 2] }).lastNode);
    expect(tree.evict(100)).toBe(2);
    expect(allocator.freedSlots().sort((a, b) => a - b)).toEqual([30, 40]);
    expect(match(tree, [1, 2])).toEqual([10, 20]);
    expect([tree.evictableSize(), tree.protectedSize()]).toEqual([0, 2]);
    tree.verifyInvariants();
  });

  it('evict(0) evicts nothing; a negative or fractional count is refused', () => {
    const { tree, allocator } = fakeTree(1);
    tree.insert({ tokens: [1] }, [10]);
    expect(tree.evict(0)).toBe(0);
    expectRejected(tree, allocator, () => tree.evict(-1), ArgumentError, ['numTokens -1']);
    expectRejected(tree, allocator, () => tree.evict(1.5), ArgumentError, ['numTokens 1.5']);
    expectRejected(tree, allocator, () => tree.evict(Number.POSITIVE_INFINITY), ArgumentError, ['Infinity']);
  });

  it('a free the allocator refuses leaves the node in the tree', () => {
    const inner = new TokenAllocator({ sizeTokens: 16, checks: true });
    const tree = new RadixTree({ allocator: inner });
    // Slot 10 was never allocated: the allocator's exactly-once check refuses to take it back.
    tree.insert({ tokens: [1] }, [10]);
    expect(() => tree.evict(1)).toThrow(/Double-free/);
    expect(tree.totalSize()).toBe(1);
    tree.verifyInvariants();
  });

  // Leaves a, b, c = [1], [2], [3] inserted at t1, t2, t3; then match a (t4), a (t5), c (t6):
  // last access a 5, b 2, c 6; hits a 2, b 0, c 1; creation a 1, b 2, c 3; priority a 1, b 3, c 2.
  // Each policy gives a different one of the six orders.
  it.each<[EvictionPolicy, number[]]>([
    ['lru', [2, 1, 3]],
    ['lfu', [2, 3, 1]],
    ['fifo', [1, 2, 3]],
    ['mru', [3, 1, 2]],
    ['filo', [3, 2, 1]],
    ['priority', [1, 3, 2]],
  ])('policy %s evicts in its order %j', (policy, expectTokens) => {
    const { tree, allocator } = fakeTree(1, policy);
    tree.insert({ tokens: [1] }, [10], { priority: 1 });
    tree.insert({ tokens: [2] }, [20], { priority: 3 });
    tree.insert({ tokens: [3] }, [30], { priority: 2 });
    tree.matchPrefix({ tokens: [1] });
    tree.matchPrefix({ tokens: [1] });
    tree.matchPrefix({ tokens: [3] });
    const evicted: number[] = [];
    for (let i = 0; i < 3; i++) {
      expect(tree.evict(1)).toBe(1);
      tree.verifyInvariants();
    }
    for (const call of allocator.calls) evicted.push(...(call.op === 'free' ? call.slots : []));
    expect(evicted.map((slot) => slot / 10)).toEqual(expectTokens);
  });

  it.each<EvictionPolicy>(['lru', 'mru'])('%s: equal keys leave by node id (a split lower node before a newer leaf)', (policy) => {
    const { tree, allocator } = fakeTree(1, policy);
    tree.insert({ tokens: [1, 2] }, [10, 20]);
    // The split stamps the lower node [2] and the new leaf [3] with the same time.
    tree.insert({ tokens: [1, 3] }, [10, 30]);
    const [lower, leaf] = [...tree.nodes()].filter((node) => node.children.size === 0);
    expect(lower?.lastAccessTime).toBe(leaf?.lastAccessTime);
    expect(tree.evict(1)).toBe(1);
    expect(allocator.calls).toEqual([{ op: 'free', slots: [20] }]);
  });
});

describe('prefix-cache:radix-tree,reset', () => {
  it('starts over with an empty tree and frees nothing', () => {
    const { tree, allocator } = fakeTree(1);
    tree.insert({ tokens: [1, 2] }, [10, 20]);
    const oldRoot = tree.root;
    tree.reset();
    expect(tree.root).not.toBe(oldRoot);
    expect([tree.totalSize(), tree.nodeCount()]).toEqual([0, 0]);
    expect(allocator.calls).toEqual([]);
    expect(tree.insert({ tokens: [1, 2] }, [10, 20])).toBe(0);
    tree.verifyInvariants();
  });
});

describe('prefix-cache:radix-tree,nodes', () => {
  it('lists every node but the root, parents before children, in insertion order', () => {
    const { tree } = fakeTree(1);
    tree.insert({ tokens: [1, 2] }, [10, 20]);
    tree.insert({ tokens: [3] }, [30]);
    tree.insert({ tokens: [1, 4] }, [10, 40]);
    expect([...tree.nodes()].map((node) => Array.from(node.key).join(','))).toEqual(['1', '2', '4', '3']);
  });
});

describe('prefix-cache:radix-tree,verify', () => {
  function tampered(tamper: (tree: RadixTree) => void, pattern: RegExp): void {
    const { tree } = fakeTree(2);
    tree.insert({ tokens: [1, 2, 3, 4] }, [8, 9, 10, 11]);
    tree.insert({ tokens: [1, 2, 5, 6] }, [8, 9, 12, 13]);
    tree.verifyInvariants();
    tamper(tree);
    expect(() => tree.verifyInvariants()).toThrow(InvariantError);
    expect(() => tree.verifyInvariants()).toThrow(pattern);
  }
  const nodeWithKey = (tree: RadixTree, first: number): TreeNode => [...tree.nodes()].find((node) => node.key[0] === first) as TreeNode;

  it('names each broken invariant', () => {
    tampered((tree) => (tree.root.lockRef = 2), /\(1\) root lockRef is 2/);
    tampered((tree) => (nodeWithKey(tree, 3).parent = tree.root), /\(2\) node \d+ is a child of \d+ but points to parent/);
    tampered((tree) => (nodeWithKey(tree, 3).key = new Int32Array([3, 4, 7])), /\(3\) node \d+ key has 3 tokens/);
    tampered((tree) => (nodeWithKey(tree, 3).value = new Int32Array([10])), /\(3\) node \d+ has 2 tokens but 1 slots/);
    tampered((tree) => (nodeWithKey(tree, 3).lockRef = 1), /\(4\) node \d+ has lockRef 1 above its parent/);
    tampered((tree) => (nodeWithKey(tree, 1).lockRef = 1), /\(5\) protected size 0/);
    tampered((tree) => (nodeWithKey(tree, 3).priority = 4), /\(6\) node \d+ has priority 4/);
    tampered((tree) => (nodeWithKey(tree, 3).value = new Int32Array([12, 13])), /\(7\) page 6 is held by node \d+ and node \d+/);
    tampered((tree) => (nodeWithKey(tree, 3).value = new Int32Array([11, 12])), /\(7\) node \d+ position 0 holds slot 11/);
    tampered((tree) => (nodeWithKey(tree, 3).key = new Int32Array([3, 9])), /\(2\) node \d+ is filed under/);
  });
});

// Planted bugs in the lock counts, the split and the match, through the protected hooks: each must
// break an invariant that verifyInvariants or the match result shows.
describe('prefix-cache:radix-tree,mutant-hooks', () => {
  class SplitWithoutLock extends RadixTree {
    protected override splitNode(child: TreeNode, k: number): TreeNode {
      const upper = super.splitNode(child, k);
      upper.lockRef = 0;
      return upper;
    }
  }
  class NoTruncation extends RadixTree {
    protected override pageAlignedLength(tokenCount: number): number {
      return tokenCount;
    }
  }
  class NoUnlockTransfer extends RadixTree {
    protected override decLockRefStep(node: TreeNode): number {
      node.lockRef -= 1;
      return 0;
    }
  }

  it('split without copying lockRef: the locked path turns evictable and the check fails', () => {
    const tree = new SplitWithoutLock({ allocator: RecordingAllocator.fake(1) });
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    tree.incLockRef(tree.matchPrefix({ tokens: [1, 2, 3] }).lastNode);
    tree.matchPrefix({ tokens: [1, 9] });
    expect(() => tree.verifyInvariants()).toThrow(/\(4\)/);
  });

  it('match without truncation: page 2, a 5-token query matches 5 (unaligned) and splits mid-page', () => {
    const tree = new NoTruncation({ allocator: RecordingAllocator.fake(2) });
    tree.insert({ tokens: range(1, 8) }, range(8, 15));
    expect(tree.matchPrefix({ tokens: range(1, 5) }).indices).toHaveLength(5);
    expect(() => tree.verifyInvariants()).toThrow(/\(3\) node \d+ key has 5 tokens/);
  });

  it('unlock without the 1 → 0 transfer: accounting drifts and the check fails', () => {
    const tree = new NoUnlockTransfer({ allocator: RecordingAllocator.fake(1) });
    tree.insert({ tokens: [1, 2, 3] }, [10, 20, 30]);
    const { lastNode } = tree.matchPrefix({ tokens: [1, 2, 3] });
    tree.incLockRef(lastNode);
    tree.decLockRef(lastNode);
    expect(() => tree.verifyInvariants()).toThrow(/\(5\) protected size 3/);
  });
});
