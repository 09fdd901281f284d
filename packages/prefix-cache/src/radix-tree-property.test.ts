import { ceilToPage, createAllocator, floorToPage, type BaseAllocator } from '@kvfuzz/allocator-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kEvictionPolicies } from './eviction-policy.js';
import type { RadixKey } from './radix-key.js';
import { RadixTree, type RadixTreeConfig } from './radix-tree.js';
import { RecordingAllocator } from './test-support/recording-allocator.js';
import type { TreeNode } from './tree-node.js';

// A property over random request traffic against a real allocator with its exactly-once checks
// on: requests match and lock a prefix, allocate the rest, and finish by inserting (freeing their
// duplicates either through insert's prevPrefixLen or themselves, the classic path); matches,
// extra locks and evictions interleave. After every step the tree's and the allocator's
// invariants hold and every slot is in exactly one place (free, tree, or a live request); at the
// end, after every request finished and every lock was dropped, evicting everything gives every
// page back exactly once per allocation.

/** Runs per property: enough for splits, duplicates and evictions at every page size, under ~3 s. */
const kRuns = 120;
/** Steps per run: long enough for pool pressure to force evictions at the small pool sizes. */
const kStepsMax = 60;
/** Fewest steps per run: below this, few runs build a tree worth splitting. */
const kStepsMin = 20;
/** Smallest pool in pages: tight enough that requests compete and allocations force evictions. */
const kPoolPagesMin = 8;
/** Largest pool in pages: roomy enough that some runs never evict. */
const kPoolPagesMax = 48;
/** Longest key in whole pages; with its partial tail page it still fits the smallest pool alone. */
const kKeyPagesMax = 6;
if (kKeyPagesMax + 1 > kPoolPagesMin) throw new Error(`a ${kKeyPagesMax + 1}-page request must fit the smallest pool of ${kPoolPagesMin} pages`);
if (kStepsMin > kStepsMax) throw new Error(`kStepsMin ${kStepsMin} exceeds kStepsMax ${kStepsMax}`);

interface KeySpec {
  /** Which base sequence (the two families share no first token, so they never share a node). */
  readonly family: number;
  readonly pages: number;
  /** Tokens past the last whole page (< page size): prompts need not end on a page. */
  readonly tailTokens: number;
  /** Page whose token `divergeOffset % pageSize` becomes `200 + divergeToken`; past the key means no divergence. */
  readonly divergePage: number;
  readonly divergeOffset: number;
  readonly divergeToken: number;
  readonly namespaced: boolean;
}

type Step =
  | { readonly kind: 'begin'; readonly key: KeySpec }
  | { readonly kind: 'finish'; readonly pick: number; readonly classic: boolean }
  | { readonly kind: 'match'; readonly key: KeySpec }
  | { readonly kind: 'lock'; readonly key: KeySpec }
  | { readonly kind: 'unlock'; readonly pick: number }
  /** Evicts `pages` tree pages plus `extraTokens % pageSize` tokens. */
  | { readonly kind: 'evict'; readonly pages: number; readonly extraTokens: number };

interface Geometry {
  readonly pageSize: number;
  readonly poolPages: number;
  readonly policy: (typeof kEvictionPolicies)[number];
  readonly needSort: boolean;
  readonly disabled: boolean;
}

interface LiveRequest {
  readonly key: RadixKey;
  /** The request's row, position → slot (its last page may be partly used). */
  readonly value: Int32Array;
  /** Tokens the tree owns at the row's start (the matched prefix, locked). */
  readonly cachedTokens: number;
  /** Slots the request holds itself: whole pages from `cachedTokens` on. */
  readonly ownSlots: number;
  readonly lastNode: TreeNode;
}

/** Builds the tree under test: the reference, or a planted mutant. */
type MakeTree = (config: RadixTreeConfig) => RadixTree;

const keySpec: fc.Arbitrary<KeySpec> = fc.record({
  family: fc.integer({ min: 0, max: 1 }),
  pages: fc.integer({ min: 1, max: kKeyPagesMax }),
  tailTokens: fc.integer({ min: 0, max: 7 }),
  divergePage: fc.integer({ min: 0, max: kKeyPagesMax + 2 }),
  divergeOffset: fc.integer({ min: 0, max: 7 }),
  divergeToken: fc.integer({ min: 0, max: 2 }),
  // Mostly one namespace, so that keys meet; sometimes a second one that must stay apart.
  namespaced: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
});

/** Per-run weights of the step kinds (STYLE rule 16): some runs never evict, some mostly match. */
interface StepMix {
  readonly begin: number;
  readonly finish: number;
  readonly match: number;
  readonly lock: number;
  readonly unlock: number;
  readonly evict: number;
}

const stepMix: fc.Arbitrary<StepMix> = fc.record({
  begin: fc.integer({ min: 1, max: 4 }),
  finish: fc.integer({ min: 1, max: 4 }),
  match: fc.integer({ min: 0, max: 3 }),
  lock: fc.integer({ min: 0, max: 2 }),
  unlock: fc.integer({ min: 0, max: 2 }),
  evict: fc.integer({ min: 0, max: 2 }),
});

function stepOf(mix: StepMix): fc.Arbitrary<Step> {
  return fc.oneof(
    { weight: mix.begin, arbitrary: keySpec.map((key) => ({ kind: 'begin' as const, key })) },
    { weight: mix.finish, arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(), classic: fc.boolean() }) },
    { weight: mix.match, arbitrary: keySpec.map((key) => ({ kind: 'match' as const, key })) },
    { weight: mix.lock, arbitrary: keySpec.map((key) => ({ kind: 'lock' as const, key })) },
    { weight: mix.unlock, arbitrary: fc.record({ kind: fc.constant('unlock' as const), pick: fc.nat() }) },
    { weight: mix.evict, arbitrary: fc.record({ kind: fc.constant('evict' as const), pages: fc.integer({ min: 0, max: 6 }), extraTokens: fc.integer({ min: 0, max: 7 }) }) },
  );
}

const geometry: fc.Arbitrary<Geometry> = fc.record({
  pageSize: fc.constantFrom(1, 2, 4, 8),
  poolPages: fc.integer({ min: kPoolPagesMin, max: kPoolPagesMax }),
  policy: fc.constantFrom(...kEvictionPolicies),
  needSort: fc.boolean(),
  // One run in eight: a disabled tree must still give every page back (through the caller).
  disabled: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
});

function keyOf(spec: KeySpec, pageSize: number): RadixKey {
  const tokens: number[] = [];
  const tokenCount = spec.pages * pageSize + (spec.tailTokens % pageSize);
  const divergeAt = spec.divergePage * pageSize + (spec.divergeOffset % pageSize);
  for (let i = 0; i < tokenCount; i++) tokens.push(i === divergeAt ? 200 + spec.divergeToken : 1 + ((i * 31 + spec.family * 17) % 97));
  return { tokens, extraKey: spec.namespaced ? 'ns' : null };
}

function pagesOf(slots: ArrayLike<number>, pageSize: number): number[] {
  const pages: number[] = [];
  for (let i = 0; i < slots.length; i += pageSize) pages.push(Math.floor((slots[i] as number) / pageSize));
  return pages;
}

/** The world of one run: the tree, the allocator, and what the test holds. */
class World {
  readonly inner: BaseAllocator;
  readonly allocator: RecordingAllocator;
  readonly tree: RadixTree;
  readonly capacity: number;
  readonly live: LiveRequest[] = [];
  readonly locks: TreeNode[] = [];
  // allocations[p]: times page p was handed out; compared with the frees the allocator saw.
  readonly allocations = new Map<number, number>();

  constructor(
    readonly g: Geometry,
    makeTree: MakeTree,
  ) {
    this.inner = createAllocator({ sizeTokens: g.pageSize * g.poolPages, kernelPageSize: g.pageSize, dcpSize: 1, needSort: g.needSort, checks: true });
    this.allocator = RecordingAllocator.wrapping(this.inner);
    this.tree = makeTree({ allocator: this.allocator, evictionPolicy: g.policy, disabled: g.disabled });
    this.capacity = g.pageSize * g.poolPages;
  }

  run(s: Step): void {
    const { tree, g } = this;
    switch (s.kind) {
      case 'begin': {
        const key = keyOf(s.key, g.pageSize);
        const { indices, lastNode } = tree.matchPrefix(key);
        tree.incLockRef(lastNode);
        // The engine allocates whole pages: the row's last page may be only partly used.
        const need = ceilToPage(key.tokens.length - indices.length, g.pageSize);
        let slots = this.allocator.alloc(need);
        if (slots === null) {
          tree.evict(need);
          slots = this.allocator.alloc(need);
        }
        if (slots === null) {
          tree.decLockRef(lastNode);
          return;
        }
        for (const page of pagesOf(slots, g.pageSize)) this.allocations.set(page, (this.allocations.get(page) ?? 0) + 1);
        const value = new Int32Array(key.tokens.length);
        value.set(indices, 0);
        value.set(slots.subarray(0, key.tokens.length - indices.length), indices.length);
        this.live.push({ key, value, cachedTokens: indices.length, ownSlots: need, lastNode });
        return;
      }
      case 'finish': {
        if (this.live.length === 0) return;
        const [request] = this.live.splice(s.pick % this.live.length, 1) as [LiveRequest];
        this.finish(request, s.classic);
        return;
      }
      case 'match': {
        const key = keyOf(s.key, g.pageSize);
        const totalBefore = tree.totalSize();
        const { indices } = tree.matchPrefix(key);
        expect(indices.length % g.pageSize).toBe(0);
        expect(indices.length).toBeLessThanOrEqual(key.tokens.length);
        expect(tree.totalSize()).toBe(totalBefore);
        return;
      }
      case 'lock': {
        const { lastNode } = tree.matchPrefix(keyOf(s.key, g.pageSize));
        tree.incLockRef(lastNode);
        this.locks.push(lastNode);
        return;
      }
      case 'unlock': {
        if (this.locks.length === 0) return;
        const [node] = this.locks.splice(s.pick % this.locks.length, 1) as [TreeNode];
        tree.decLockRef(node);
        return;
      }
      case 'evict': {
        const evictableBefore = tree.evictableSize();
        const wantTokens = s.pages * g.pageSize + (s.extraTokens % g.pageSize);
        const evicted = tree.evict(wantTokens);
        // Every unlocked node sits below the locked frontier, so all of it is reachable.
        expect(evicted).toBeGreaterThanOrEqual(Math.min(wantTokens, evictableBefore));
        expect(evicted).toBeLessThanOrEqual(evictableBefore);
        expect(tree.evictableSize()).toBe(evictableBefore - evicted);
        return;
      }
    }
  }

  finish(request: LiveRequest, classic: boolean): void {
    const { tree } = this;
    const { key, value, cachedTokens, lastNode } = request;
    if (this.g.disabled) {
      this.allocator.free(value);
      tree.decLockRef(lastNode);
      return;
    }
    // The tree takes the whole pages; the unaligned tail's partial page goes back on its own
    // (as the engine's `cache_finished_req` does), in a separate call that cannot share a page with
    // the insert's frees.
    const alignedTokens = floorToPage(key.tokens.length, this.g.pageSize);
    const alignedKey = { tokens: Array.prototype.slice.call(key.tokens, 0, alignedTokens) as number[], extraKey: key.extraKey ?? null };
    const alignedValue = value.subarray(0, alignedTokens);
    if (classic) {
      const prefixLen = tree.insert(alignedKey, alignedValue);
      expect(prefixLen).toBeGreaterThanOrEqual(Math.min(cachedTokens, alignedTokens));
      if (prefixLen > cachedTokens) this.allocator.free(value.subarray(cachedTokens, prefixLen));
    } else {
      const prefixLen = tree.insert(alignedKey, alignedValue, { prevPrefixLen: cachedTokens });
      expect(prefixLen).toBeGreaterThanOrEqual(Math.min(cachedTokens, alignedTokens));
    }
    if (alignedTokens < key.tokens.length) this.allocator.free(value.subarray(alignedTokens));
    tree.decLockRef(lastNode);
  }

  /** Invariants of both structures, conservation, and disjoint ownership. */
  check(): void {
    const { tree, inner, g } = this;
    tree.verifyInvariants();
    inner.verifyInvariants();
    expect(tree.evictableSize() + tree.protectedSize()).toBe(tree.totalSize());
    const owned = new Set<number>();
    for (const node of tree.nodes()) for (const page of pagesOf(node.value ?? [], g.pageSize)) owned.add(page);
    let liveTokens = 0;
    for (const request of this.live) {
      const own = request.value.subarray(request.cachedTokens);
      liveTokens += request.ownSlots;
      for (const page of pagesOf(own, g.pageSize)) {
        expect(owned.has(page), `page ${page} held by a request and by the tree (or by two requests)`).toBe(false);
        owned.add(page);
      }
    }
    expect(inner.availableSize() + tree.totalSize() + liveTokens).toBe(this.capacity);
  }

  /** Finishes every request, drops every lock, evicts everything, and checks every page came back once per allocation. */
  drain(): void {
    const { tree, g } = this;
    let classic = false;
    while (this.live.length > 0) {
      this.finish(this.live.pop() as LiveRequest, (classic = !classic));
      this.check();
    }
    while (this.locks.length > 0) tree.decLockRef(this.locks.pop() as TreeNode);
    expect(tree.protectedSize()).toBe(0);
    const total = tree.totalSize();
    expect(tree.evict(total)).toBe(total);
    this.check();
    expect(tree.totalSize()).toBe(0);
    expect(tree.nodeCount()).toBe(0);
    expect(this.inner.availableSize()).toBe(this.capacity);
    const frees = new Map<number, number>();
    const count = (page: number): void => void frees.set(page, (frees.get(page) ?? 0) + 1);
    for (const call of this.allocator.calls) {
      if (call.op === 'free') new Set(call.slots.map((slot) => Math.floor(slot / g.pageSize))).forEach(count);
      else for (const segment of call.segments) pagesOf(segment.slots, g.pageSize).forEach(count);
    }
    expect(new Map([...frees].sort((a, b) => a[0] - b[0]))).toEqual(new Map([...this.allocations].sort((a, b) => a[0] - b[0])));
  }
}

/** The property over one drawn geometry and step list, for the tree `makeTree` builds. */
function trafficProperty(makeTree: MakeTree): fc.IPropertyWithHooks<[[Geometry, Step[]]]> {
  const run = fc.tuple(geometry, stepMix).chain(([g, mix]) => fc.tuple(fc.constant(g), fc.array(stepOf(mix), { minLength: kStepsMin, maxLength: kStepsMax, size: 'max' })));
  return fc.property(run, ([g, steps]) => {
    const world = new World(g, makeTree);
    for (const s of steps) {
      world.run(s);
      world.check();
    }
    world.drain();
  });
}

// Planted bugs in the lock counts, the split and the match: the property must catch each one
// (STYLE rule 17).
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
class UncheckedUnderflow extends NoUnlockTransfer {
  protected override checkUnlockable(): void {}
}

describe('prefix-cache:radix-tree,property', () => {
  it('random traffic keeps every invariant, and draining gives every page back exactly once', () => {
    fc.assert(trafficProperty((config) => new RadixTree(config)), { numRuns: kRuns });
  });

  it.each<[string, MakeTree]>([
    ['split without copying lockRef', (config) => new SplitWithoutLock(config)],
    ['match without page truncation', (config) => new NoTruncation(config)],
    ['unlock without the 1 → 0 transfer', (config) => new NoUnlockTransfer(config)],
    ['unlock without the transfer or the underflow check', (config) => new UncheckedUnderflow(config)],
  ])('catches the planted bug: %s', (_name, makeTree) => {
    // endOnFailure: the verdict is all we need here; shrinking would only cost time.
    const result = fc.check(trafficProperty(makeTree), { numRuns: kRuns, seed: 42, endOnFailure: true });
    expect(result.failed).toBe(true);
  });
});
