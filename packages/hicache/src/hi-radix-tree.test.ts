import { ArgumentError, PagedAllocator } from '@kvfuzz/allocator-core';
import { HostSlotPool } from '@kvfuzz/host-pool';
import type { TreeNode } from '@kvfuzz/prefix-cache';
import { describe, expect, it } from 'vitest';
import { HiRadixTree } from './hi-radix-tree.js';
import {
  allNodes,
  backUp,
  expectHiInvariants,
  findNode,
  hiCacheFixture,
  hiState,
  hostSlotsHeld,
  insertFresh,
  nodeAt,
  prompt,
  step,
  type HiCacheFixture,
} from './test-support/hicache-fixture.js';

/** A fixture whose tree holds `keys`, inserted in order with fresh device slots, each node backed up. */
function backedUpTree(keys: readonly (readonly number[])[]): HiCacheFixture {
  const fx = hiCacheFixture();
  for (const key of keys) {
    insertFresh(fx, key);
    backUp(fx, nodeAt(fx, key));
  }
  expectHiInvariants(fx);
  return fx;
}

/** Evicts `tokens` device tokens while `keep` stays locked. */
function evictAllBut(fx: HiCacheFixture, keep: TreeNode, tokens: number): number {
  fx.cache.tree.incLockRef(keep);
  const evicted = fx.cache.evict(tokens);
  fx.cache.tree.decLockRef(keep);
  return evicted;
}

describe('hicache:device-eviction', () => {
  it('a backed-up node is kept, evicted: device slots back, value null, host copy kept', () => {
    const fx = backedUpTree([prompt(1, 8)]);
    const node = nodeAt(fx, prompt(1, 8));
    const hostValue = Array.from(node.hostValue as Int32Array);
    const deviceBefore = fx.device.availableSize();
    const hostBefore = fx.host.availableSize();
    expect(fx.cache.evictableSize()).toBe(8);
    expect(step(fx, () => fx.cache.evict(8))).toBe(8);
    expect(findNode(fx, prompt(1, 8))).toBe(node);
    expect(node.value).toBeNull();
    expect(node.evicted).toBe(true);
    expect(Array.from(node.hostValue as Int32Array)).toEqual(hostValue);
    expect(fx.device.availableSize()).toBe(deviceBefore + 8);
    expect(fx.host.availableSize()).toBe(hostBefore);
    expect(fx.cache.evictableSize()).toBe(0);
    expect(fx.cache.totalSize()).toBe(0);
    expect(fx.cache.tree.nodeCount()).toBe(1);
    // Nothing left to evict: an evicted node is no victim.
    expect(fx.cache.evict(8)).toBe(0);
  });

  it('a node without a backup is deleted', () => {
    const fx = hiCacheFixture();
    insertFresh(fx, prompt(1, 8));
    const node = nodeAt(fx, prompt(1, 8));
    expect(step(fx, () => fx.cache.evict(8))).toBe(8);
    expect(findNode(fx, prompt(1, 8))).toBeNull();
    expect(node.parent).toBeNull();
    expect(fx.cache.tree.nodeCount()).toBe(0);
    expect(fx.device.availableSize()).toBe(fx.geometry.devicePageCount * fx.pageSize);
  });

  it('evicts leaf-up: a parent becomes a victim only once its children are evicted', () => {
    const fx = backedUpTree([prompt(1, 8), prompt(1, 12)]);
    const a = nodeAt(fx, prompt(1, 8));
    const b = nodeAt(fx, prompt(1, 12));
    expect(step(fx, () => fx.cache.evict(4))).toBe(4);
    expect(b.value).toBeNull();
    expect(a.value).not.toBeNull();
    expect(step(fx, () => fx.cache.evict(4))).toBe(8);
    expect(a.value).toBeNull();
    expect(fx.cache.tree.nodeCount()).toBe(2);
  });

  it('a backed-up parent with an unbacked leaf: the leaf is deleted, the parent kept evicted', () => {
    const fx = backedUpTree([prompt(1, 8)]);
    insertFresh(fx, prompt(1, 12));
    const a = nodeAt(fx, prompt(1, 8));
    expect(step(fx, () => fx.cache.evict(12))).toBe(12);
    expect(findNode(fx, prompt(1, 12))).toBeNull();
    expect(a.value).toBeNull();
    expect(a.children.size).toBe(0);
  });

  it('locked nodes stay on the device', () => {
    const fx = backedUpTree([prompt(1, 8), prompt(2, 8)]);
    const a = nodeAt(fx, prompt(1, 8));
    const b = nodeAt(fx, prompt(2, 8));
    expect(step(fx, () => evictAllBut(fx, a, 16))).toBe(8);
    expect(a.value).not.toBeNull();
    expect(b.value).toBeNull();
  });

  it('backUpForEviction is asked about unbacked victims only, and a victim it backs up is kept', () => {
    const device = new PagedAllocator({ sizeTokens: 64, kernelPageSize: 2, dcpSize: 2, needSort: false, checks: true });
    const host = new HostSlotPool({ sizeTokens: 60, pageSize: 4, dcpSize: 2, checks: true });
    const tree = new HiRadixTree({ allocator: device, evictionPolicy: 'lru' });
    const asked: number[] = [];
    tree.backUpForEviction = (node) => {
      asked.push(node.id);
      if (node.key[0] !== 10000) return false; // only family 1 is backed up
      node.hostValue = host.alloc(node.key.length);
      return true;
    };
    tree.insert({ tokens: prompt(1, 8), extraKey: null }, device.alloc(8) as Int32Array);
    tree.insert({ tokens: prompt(2, 8), extraKey: null }, device.alloc(8) as Int32Array);
    tree.insert({ tokens: prompt(3, 8), extraKey: null }, device.alloc(8) as Int32Array);
    const [one, two, three] = [...tree.nodes()] as [TreeNode, TreeNode, TreeNode];
    three.hostValue = host.alloc(8); // already backed up: not asked
    expect(tree.evict(24)).toBe(24);
    expect(asked).toEqual([one.id, two.id]);
    expect(one.value).toBeNull();
    expect(one.parent).toBe(tree.root);
    expect(two.parent).toBeNull();
    expect(three.value).toBeNull();
    expect(three.parent).toBe(tree.root);
    expect(device.availableSize()).toBe(64);
    tree.verifyInvariants();
    device.verifyInvariants();
  });

  it('a bare HiRadixTree backs nothing up at eviction: unbacked victims are deleted', () => {
    const device = new PagedAllocator({ sizeTokens: 64, kernelPageSize: 2, dcpSize: 2, needSort: false, checks: true });
    const tree = new HiRadixTree({ allocator: device, evictionPolicy: 'lru' });
    tree.insert({ tokens: prompt(1, 8), extraKey: null }, device.alloc(8) as Int32Array);
    expect(tree.evict(8)).toBe(8);
    expect(tree.nodeCount()).toBe(0);
    expect(device.availableSize()).toBe(64);
  });
});

describe('hicache:host-eviction', () => {
  /** C (family 3), then A → B (family 1), then D (family 4), all backed up; C, A, B evicted, D on the device. */
  function evictedForest(): { fx: HiCacheFixture; a: TreeNode; b: TreeNode; c: TreeNode; d: TreeNode } {
    const fx = backedUpTree([prompt(3, 8), prompt(1, 8), prompt(1, 16), prompt(4, 8)]);
    const [a, b, c, d] = [nodeAt(fx, prompt(1, 8)), nodeAt(fx, prompt(1, 16)), nodeAt(fx, prompt(3, 8)), nodeAt(fx, prompt(4, 8))];
    expect(step(fx, () => evictAllBut(fx, d, 24))).toBe(24);
    expect([a.value, b.value, c.value]).toEqual([null, null, null]);
    return { fx, a, b, c, d };
  }

  it('removes evicted, childless nodes in policy order and frees their host slots', () => {
    const { fx, a, b, c } = evictedForest();
    const hostBefore = fx.host.availableSize();
    const cHost = Array.from(c.hostValue as Int32Array);
    // Candidates are B and C (A has a child, D is on the device); under LRU, C (inserted first) goes.
    expect(step(fx, () => fx.cache.evictHost(8))).toBe(8);
    expect(c.parent).toBeNull();
    expect(c.hostValue).toBeNull();
    expect(findNode(fx, prompt(3, 8))).toBeNull();
    expect(fx.host.availableSize()).toBe(hostBefore + 8);
    for (const slot of cHost) expect(hostSlotsHeld(fx)).not.toContain(slot);
    expect(findNode(fx, prompt(1, 16))).toBe(b);
    expect(findNode(fx, prompt(1, 8))).toBe(a);
  });

  it('a parent goes once its last child is gone; a device-resident node never goes', () => {
    const { fx, a, b, d } = evictedForest();
    const dHost = Array.from(d.hostValue as Int32Array);
    const dValue = Array.from(d.value as Int32Array);
    expect(step(fx, () => fx.cache.evictHost(1000))).toBe(24);
    expect([a.parent, b.parent]).toEqual([null, null]);
    expect(allNodes(fx)).toEqual([d]);
    expect(Array.from(d.hostValue as Int32Array)).toEqual(dHost);
    expect(Array.from(d.value as Int32Array)).toEqual(dValue);
    expect(hostSlotsHeld(fx)).toEqual(dHost.slice().sort((x, y) => x - y));
    expect(fx.host.availableSize()).toBe(fx.host.size - 8);
    // Nothing evicted is left: a second pass frees nothing.
    expect(fx.cache.evictHost(8)).toBe(0);
  });

  it('an evicted node under a device-resident parent goes, the parent stays', () => {
    const fx = backedUpTree([prompt(1, 8), prompt(1, 16)]);
    const [a, b] = [nodeAt(fx, prompt(1, 8)), nodeAt(fx, prompt(1, 16))];
    expect(step(fx, () => fx.cache.evict(8))).toBe(8);
    expect(b.value).toBeNull();
    expect(step(fx, () => fx.cache.evictHost(1000))).toBe(8);
    expect(b.parent).toBeNull();
    expect(a.value).not.toBeNull();
    expect(a.hostValue).not.toBeNull();
    expect(allNodes(fx)).toEqual([a]);
  });

  it('a node pinned by hostRefCounter stays, and so does its parent', () => {
    const { fx, a, b, c } = evictedForest();
    b.hostRefCounter = 1;
    expect(step(fx, () => fx.cache.evictHost(1000))).toBe(8);
    expect(c.parent).toBeNull();
    expect(b.parent).toBe(a);
    expect(a.hostValue).not.toBeNull();
    b.hostRefCounter = 0;
    expect(step(fx, () => fx.cache.evictHost(1000))).toBe(16);
  });

  it('evictHost(0) frees nothing; a bad count throws ArgumentError and changes nothing', () => {
    const { fx } = evictedForest();
    const before = hiState(fx);
    expect(fx.cache.evictHost(0)).toBe(0);
    expect(hiState(fx)).toEqual(before);
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() => fx.cache.evictHost(bad)).toThrow(ArgumentError);
      expect(() => fx.cache.evictHost(bad)).toThrow(`evictHost numTokens ${String(bad)} is not a non-negative integer`);
      expect(hiState(fx)).toEqual(before);
    }
  });
});

describe('hicache:revive', () => {
  it('insert through an evicted, backed-up node adopts its slots and leaves them out of the prefix length', () => {
    const fx = backedUpTree([prompt(1, 8), prompt(1, 16)]);
    const [a, b] = [nodeAt(fx, prompt(1, 8)), nodeAt(fx, prompt(1, 16))];
    const bHost = Array.from(b.hostValue as Int32Array);
    expect(step(fx, () => fx.cache.evict(8))).toBe(8);
    const slots = fx.device.alloc(20) as Int32Array;
    const prefixLen = fx.cache.tree.insert({ tokens: prompt(1, 20), extraKey: null }, slots);
    // A (8 tokens on the device) is a duplicate the caller gives back; B's 8 revived tokens are the tree's now.
    expect(prefixLen).toBe(8);
    fx.device.free(slots.subarray(0, prefixLen));
    expect(Array.from(b.value as Int32Array)).toEqual(Array.from(slots.subarray(8, 16)));
    expect(Array.from(b.hostValue as Int32Array)).toEqual(bHost);
    const leaf = nodeAt(fx, prompt(1, 20));
    expect(leaf.parent).toBe(b);
    expect(leaf.hostValue).toBeNull();
    expect(a.value).not.toBeNull();
    expect(fx.cache.evictableSize()).toBe(8 + 8 + 4);
    expectHiInvariants(fx);
  });

  it('a key ending inside an evicted node splits it and revives the upper part only', () => {
    const fx = backedUpTree([prompt(1, 8)]);
    const a = nodeAt(fx, prompt(1, 8));
    const aHost = Array.from(a.hostValue as Int32Array);
    expect(step(fx, () => fx.cache.evict(8))).toBe(8);
    const slots = fx.device.alloc(4) as Int32Array;
    expect(step(fx, () => fx.cache.tree.insert({ tokens: prompt(1, 4), extraKey: null }, slots))).toBe(0);
    const upper = nodeAt(fx, prompt(1, 4));
    expect(upper).not.toBe(a);
    expect(a.parent).toBe(upper);
    expect(Array.from(upper.value as Int32Array)).toEqual(Array.from(slots));
    expect(Array.from(upper.hostValue as Int32Array)).toEqual(aHost.slice(0, 4));
    expect(a.value).toBeNull();
    expect(Array.from(a.hostValue as Int32Array)).toEqual(aHost.slice(4));
    expect(fx.cache.evictableSize()).toBe(4);
  });
});
