import { ArgumentError, SegmentError } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { CacheConfigError, PageSplitError, RangeOrderError, RequestStateError } from './errors.js';
import { RadixCache, type FinishPath } from './radix-cache.js';
import { ReqToTokenPool } from './req-to-token-pool.js';
import type { Req } from './request.js';
import {
  admit,
  cacheFixture,
  expectDrainsFull,
  expectRejected,
  extend,
  freedPages,
  matched,
  prompt,
  recordedBy,
  rowPages,
  rowSlots,
  type CacheFixture,
} from './test-support/request-fixture.js';

// The engine's finish paths (`cache_finished_req` of `radix_cache.py` and of the unified cache), the
// release order of `release_kv_cache` and the SWA floor of `free_swa_out_of_window_slots` (both in
// `common.py`), the request and tree invariants, and the DCP seam scenarios. Unless a test says
// otherwise the geometry is kernel page 2 × DCP 4 = allocator (and tree) page 8, 16 pages handed
// out lowest first, so a fresh request's row [0, 8) is page 1, [8, 16) page 2, [16, 24) page 3,
// [24, 32) page 4.

/** A fresh fixture and one request of family 1 extended to `committed` tokens (a prompt of 40). */
function oneRequest(committed: number, overrides: Parameters<typeof cacheFixture>[0] = {}): { fx: CacheFixture; req: Req } {
  const fx = cacheFixture(overrides);
  const req = admit(fx, prompt(1, 40));
  extend(fx, req, committed);
  return { fx, req };
}

/** Chunked prefill of `req` to `committed`, then `cacheUnfinishedReq`. */
function chunk(fx: CacheFixture, req: Req, committed: number): void {
  extend(fx, req, committed);
  fx.cache.cacheUnfinishedReq(req);
}

describe('prefix-cache:radix-cache,finish-unified', () => {
  it.each([
    // name, committed, cap, pages given back, tokens the tree keeps
    ['no cap, committed aligned', 24, null, [], 24],
    ['no cap, committed unaligned: the partial page goes back', 21, null, [3], 16],
    ['cap on the allocator page', 21, 8, [2, 3], 8],
    ['cap on the kernel grid inside page 2 (the seam)', 21, 10, [2, 3], 8],
    ['seam with an aligned committed length', 24, 10, [2, 3], 8],
    ['cap on the kernel grid inside the last page', 21, 18, [3], 16],
    ['cap 0', 21, 0, [1, 2, 3], 0],
    ['cap = committed (no truncation)', 21, 21, [3], 16],
    ['cap above committed (no truncation)', 21, 40, [3], 16],
  ] as const)('%s: committed %i, cap %s → pages %j back, the tree keeps %i', (_name, committed, cap, pages, kept) => {
    const { fx, req } = oneRequest(committed);
    const slots = rowSlots(fx, req, 0, committed);
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: cap }))).toEqual(pages);
    expect(fx.cache.totalSize()).toBe(kept);
    expect(fx.cache.protectedSize()).toBe(0);
    expect(matched(fx, prompt(1, 40))).toEqual(slots.slice(0, kept));
    expect(req.lastNode).toBeNull();
    fx.cache.tree.verifyInvariants();
    expectDrainsFull(fx, [req]);
  });

  it('the seam: ranges [8, 10) and [10, 21) meet inside page 2 and go back as one coalesced segment', () => {
    const { fx, req } = oneRequest(21);
    const calls = recordedBy(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: 10 }));
    expect(calls).toEqual([['freeSegments', [[8, rowSlots(fx, req, 8, 21)]]]]);
    expect(rowPages(fx, req, 8, 21)).toEqual([2, 3]);
  });

  it('the production geometry (kernel 64 × DCP 8 = 512): committed 1100, cap 576 gives back pages 2 and 3 once, the tree keeps [0, 512)', () => {
    const fx = cacheFixture({ kernelPageSize: 64, dcpSize: 8, pageCount: 8, rowCount: 2, rowLength: 2048 });
    const req = admit(fx, prompt(1, 1100));
    extend(fx, req, 1100);
    const slots = rowSlots(fx, req, 0, 512);
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: 576 }))).toEqual([2, 3]));
    expect(calls).toEqual([['freeSegments', [[512, rowSlots(fx, req, 512, 1100)]]]]);
    expect(fx.cache.totalSize()).toBe(512);
    expect(matched(fx, prompt(1, 1100))).toEqual(slots);
    expectDrainsFull(fx, [req]);
  });

  it.each([
    // protected prefix from a chunk, committed chunk length → pages back, tokens kept
    [512, 600, [2, 3], 512],
    [1024, 1050, [3], 1024],
  ])('the production seam under a protected prefix of %i: cap 576 frees only what the request owns', (protectedLen, chunkLen, pages, kept) => {
    const fx = cacheFixture({ kernelPageSize: 64, dcpSize: 8, pageCount: 8, rowCount: 2, rowLength: 2048 });
    const req = admit(fx, prompt(1, 1100));
    chunk(fx, req, chunkLen);
    expect(req.kv.cacheProtectedLen).toBe(protectedLen);
    extend(fx, req, 1100);
    const slots = rowSlots(fx, req, 0, kept);
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: 576 }))).toEqual(pages);
    expect(fx.cache.totalSize()).toBe(kept);
    expect(matched(fx, prompt(1, 1100))).toEqual(slots);
    expectDrainsFull(fx, [req]);
  });

  it.each([
    // cap below the protected prefix 16: on the kernel grid inside tree page 2, on a page, 0
    [10],
    [8],
    [0],
    [16],
  ])('a cap of %i at or below cacheProtectedLen 16 gives back nothing the tree owns', (cap) => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 40));
    chunk(fx, req, 17);
    expect(req.kv.cacheProtectedLen).toBe(16);
    extend(fx, req, 21);
    const treeSlots = rowSlots(fx, req, 0, 16);
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: cap }))).toEqual([3]);
    expect(fx.cache.totalSize()).toBe(16);
    expect(fx.cache.protectedSize()).toBe(0);
    expect(matched(fx, prompt(1, 40))).toEqual(treeSlots);
    expectDrainsFull(fx, [req]);
  });

  it("duplicates: two requests with the same prompt; the second one's copies go back once, by insert, and the tree keeps the first one's pages", () => {
    const fx = cacheFixture();
    const first = admit(fx, prompt(1, 40));
    const second = admit(fx, prompt(1, 40));
    extend(fx, first, 21); // pages 1, 2, 3
    extend(fx, second, 21); // pages 4, 5, 6
    const firstSlots = rowSlots(fx, first, 0, 16);
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(first))).toEqual([3]);
    let calls: ReturnType<typeof recordedBy> = [];
    expect(freedPages(fx, () => (calls = recordedBy(fx, () => fx.cache.cacheFinishedReq(second))))).toEqual([4, 5, 6]);
    // The insert's duplicate free [0, 16), then the unaligned tail [16, 21): two calls, no shared page.
    expect(calls).toEqual([
      ['freeSegments', [[0, rowSlots(fx, second, 0, 16)]]],
      ['freeSegments', [[16, rowSlots(fx, second, 16, 21)]]],
    ]);
    expect(fx.cache.totalSize()).toBe(16);
    expect(matched(fx, prompt(1, 40))).toEqual(firstSlots);
    expectDrainsFull(fx, [first, second]);
  });

  it('a request that matched a cached prefix holds its lock until the finish releases it', () => {
    const fx = cacheFixture();
    const first = admit(fx, prompt(1, 40));
    extend(fx, first, 16);
    fx.cache.cacheFinishedReq(first);
    const second = admit(fx, prompt(1, 40));
    expect(second.kv).toMatchObject({ cacheProtectedLen: 16, kvCommittedLen: 16 });
    const lastNode = second.lastNode;
    expect(lastNode?.lockRef).toBe(1);
    expect(fx.cache.protectedSize()).toBe(16);
    extend(fx, second, 21); // its own page 3 for [16, 21)
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(second))).toEqual([3]);
    expect(lastNode?.lockRef).toBe(0);
    expect(second.lastNode).toBeNull();
    expect(fx.cache.protectedSize()).toBe(0);
    expect(fx.cache.evictableSize()).toBe(16);
    expectDrainsFull(fx, [first, second]);
  });

  it('insert: false gives back [cacheProtectedLen, committed) and leaves the tree alone', () => {
    const fx = cacheFixture();
    const first = admit(fx, prompt(1, 40));
    extend(fx, first, 16);
    fx.cache.cacheFinishedReq(first);
    const second = admit(fx, prompt(1, 40));
    extend(fx, second, 29); // pages 3, 4 for [16, 29)
    const before = fx.cache.totalSize();
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(second, { insert: false, capTokens: 10 }))).toEqual([3, 4]));
    expect(calls).toEqual([['freeSegments', [[16, rowSlots(fx, second, 16, 29)]]]]);
    expect(fx.cache.totalSize()).toBe(before);
    expect(fx.cache.protectedSize()).toBe(0);
    expectDrainsFull(fx, [first, second]);
  });

  it('insert: false with nothing protected gives back the whole committed row', () => {
    const { fx, req } = oneRequest(21);
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { insert: false }))).toEqual([1, 2, 3]);
    expect(fx.cache.totalSize()).toBe(0);
    expectDrainsFull(fx, [req]);
  });

  it('a disabled cache matches nothing, caches nothing, and gives back [0, committed) in one call', () => {
    const fx = cacheFixture({ disabled: true });
    const req = admit(fx, prompt(1, 40));
    expect(req.kv.cacheProtectedLen).toBe(0);
    expect(req.lastNode).toBe(fx.cache.tree.root);
    chunk(fx, req, 13);
    expect(req.kv.cacheProtectedLen).toBe(0);
    extend(fx, req, 21);
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: 10 }))).toEqual([1, 2, 3]));
    expect(calls).toEqual([['freeSegments', [[0, rowSlots(fx, req, 0, 21)]]]]);
    expect(fx.cache.totalSize()).toBe(0);
    expectDrainsFull(fx, [req]);
  });
});

describe('prefix-cache:radix-cache,finish-classic', () => {
  it('duplicates and the unaligned tail go back as two plain frees', () => {
    const fx = cacheFixture({ finishPath: 'classic' });
    const first = admit(fx, prompt(1, 40));
    const second = admit(fx, prompt(1, 40));
    extend(fx, first, 21); // pages 1, 2, 3
    extend(fx, second, 21); // pages 4, 5, 6
    const firstSlots = rowSlots(fx, first, 0, 16);
    expect(recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(first))).toEqual([3]))).toEqual([['free', rowSlots(fx, first, 16, 21)]]);
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(second))).toEqual([4, 5, 6]));
    expect(calls).toEqual([
      ['free', rowSlots(fx, second, 0, 16)],
      ['free', rowSlots(fx, second, 16, 21)],
    ]);
    expect(matched(fx, prompt(1, 40))).toEqual(firstSlots);
    expectDrainsFull(fx, [first, second]);
  });

  it.each([[8], [16], [0]])('a cap of %i on the tree page gives back the truncation tail first, then the duplicates', (cap) => {
    const fx = cacheFixture({ finishPath: 'classic' });
    const first = admit(fx, prompt(1, 40));
    const second = admit(fx, prompt(1, 40));
    extend(fx, first, 21);
    extend(fx, second, 21);
    fx.cache.cacheFinishedReq(first);
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(second, { capTokens: cap }))).toEqual([4, 5, 6]));
    const expected: ReturnType<typeof recordedBy> = [['free', rowSlots(fx, second, cap, 21)]];
    if (cap > 0) expected.push(['free', rowSlots(fx, second, 0, cap)]);
    expect(calls).toEqual(expected);
    expect(fx.cache.totalSize()).toBe(16);
    expectDrainsFull(fx, [first, second]);
  });

  it('a cap on the tree page without duplicates: the truncation tail, and the tree keeps the cap', () => {
    const { fx, req } = oneRequest(21, { finishPath: 'classic' });
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: 8 }))).toEqual([2, 3]));
    expect(calls).toEqual([['free', rowSlots(fx, req, 8, 21)]]);
    expect(fx.cache.totalSize()).toBe(8);
    expectDrainsFull(fx, [req]);
  });

  it.each([
    // a cap off the tree page, below committed 21: the refused side of each boundary
    [10, 8],
    [4, 0],
    [20, 16],
    [18, 16],
  ])('a cap of %i (off the tree page) throws PageSplitError naming it and changes nothing', (cap, floor) => {
    const { fx, req } = oneRequest(21, { finishPath: 'classic' });
    expectRejected(fx, req, () => fx.cache.cacheFinishedReq(req, { capTokens: cap }), PageSplitError, [`cache_len=${cap}`, `page_aligned_len=${floor}`]);
    // The request then finishes uncapped.
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req))).toEqual([3]);
    expectDrainsFull(fx, [req]);
  });

  it('a cap off the tree page at or above committed is no truncation, so it is accepted', () => {
    for (const cap of [21, 22, 30]) {
      const { fx, req } = oneRequest(21, { finishPath: 'classic' });
      expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: cap }))).toEqual([3]);
      expectDrainsFull(fx, [req]);
    }
  });

  it("a cap below a protected prefix gives back only the request's own tail", () => {
    const fx = cacheFixture({ finishPath: 'classic' });
    const req = admit(fx, prompt(1, 40));
    chunk(fx, req, 17);
    extend(fx, req, 21);
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: 8 }))).toEqual([3]);
    expect(fx.cache.totalSize()).toBe(16);
    expectDrainsFull(fx, [req]);
  });
});

describe('prefix-cache:radix-cache,unfinished', () => {
  it('caches floor_to_page(committed), locks the new end and protects it; nothing goes back', () => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 40));
    expect(req.lastNode).toBe(fx.cache.tree.root);
    extend(fx, req, 13);
    const row = rowSlots(fx, req, 0, 13);
    expect(recordedBy(fx, () => fx.cache.cacheUnfinishedReq(req))).toEqual([]);
    expect(req.kv).toMatchObject({ cacheProtectedLen: 8, kvCommittedLen: 13, kvAllocatedLen: 13 });
    expect(req.lastNode).not.toBe(fx.cache.tree.root);
    expect(Array.from(req.lastNode?.key ?? [])).toEqual(prompt(1, 8));
    expect(req.lastNode?.lockRef).toBe(1);
    expect([fx.cache.totalSize(), fx.cache.protectedSize(), fx.cache.evictableSize()]).toEqual([8, 8, 0]);
    expect(rowSlots(fx, req, 0, 13)).toEqual(row);
    fx.cache.tree.verifyInvariants();
  });

  it("writes the tree's slots back into the row at [cacheProtectedLen, keys) and gives back the duplicates", () => {
    const fx = cacheFixture();
    const first = admit(fx, prompt(1, 40));
    const second = admit(fx, prompt(1, 40));
    extend(fx, first, 21); // pages 1, 2, 3
    extend(fx, second, 21); // pages 4, 5, 6
    fx.cache.cacheFinishedReq(first);
    const treeSlots = rowSlots(fx, first, 0, 16);
    const ownTail = rowSlots(fx, second, 16, 21);
    expect(freedPages(fx, () => fx.cache.cacheUnfinishedReq(second))).toEqual([4, 5]);
    expect(rowSlots(fx, second, 0, 16)).toEqual(treeSlots);
    expect(rowSlots(fx, second, 16, 21)).toEqual(ownTail);
    expect(second.kv.cacheProtectedLen).toBe(16);
    expect(fx.cache.protectedSize()).toBe(16);
    // The partial page stays the request's and goes back at the finish.
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(second))).toEqual([6]);
    expectDrainsFull(fx, [first, second]);
  });

  it('classic path: the duplicates go back as one plain free', () => {
    const fx = cacheFixture({ finishPath: 'classic' });
    const first = admit(fx, prompt(1, 40));
    const second = admit(fx, prompt(1, 40));
    extend(fx, first, 21);
    extend(fx, second, 21);
    fx.cache.cacheFinishedReq(first);
    const duplicates = rowSlots(fx, second, 0, 16);
    expect(recordedBy(fx, () => fx.cache.cacheUnfinishedReq(second))).toEqual([['free', duplicates]]);
    expect(rowSlots(fx, second, 0, 16)).toEqual(rowSlots(fx, first, 0, 16));
    fx.cache.cacheFinishedReq(second);
    expectDrainsFull(fx, [first, second]);
  });

  it('moves the lock: the old end is unlocked, the new end locked, and a second request matches the new prefix', () => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 40));
    chunk(fx, req, 13);
    const oldEnd = req.lastNode;
    chunk(fx, req, 21);
    const newEnd = req.lastNode;
    expect(newEnd).not.toBe(oldEnd);
    expect(newEnd?.parent).toBe(oldEnd);
    // The old end stays locked once, through its child's lock only.
    expect([oldEnd?.lockRef, newEnd?.lockRef]).toEqual([1, 1]);
    expect(fx.cache.protectedSize()).toBe(16);
    expect(req.kv.cacheProtectedLen).toBe(16);
    const other = admit(fx, prompt(1, 40));
    expect(other.kv.cacheProtectedLen).toBe(16);
    expect(rowSlots(fx, other, 0, 16)).toEqual(rowSlots(fx, req, 0, 16));
    expect(other.lastNode).toBe(newEnd);
    expect(newEnd?.lockRef).toBe(2);
    fx.cache.cacheFinishedReq(other);
    fx.cache.cacheFinishedReq(req);
    expect(fx.cache.protectedSize()).toBe(0);
    expect([oldEnd?.lockRef, newEnd?.lockRef]).toEqual([0, 0]);
    expectDrainsFull(fx, [req, other]);
  });

  it('does nothing while the committed length has not reached a new page', () => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 40));
    extend(fx, req, 5);
    expectNoChange(fx, req, () => fx.cache.cacheUnfinishedReq(req));
    chunk(fx, req, 13);
    extend(fx, req, 15);
    expectNoChange(fx, req, () => fx.cache.cacheUnfinishedReq(req));
    expect(req.kv.cacheProtectedLen).toBe(8);
  });

  it.each([
    // finish path, a cap each path accepts → pages back, tokens the tree keeps
    ['unified', 30, [4, 5], 24],
    ['classic', 32, [5], 32],
  ] as const)('%s: repeated chunks, then a finish capped at %i, leave the allocator full once the tree is evicted', (finishPath, cap, pages, kept) => {
    const fx = cacheFixture({ finishPath });
    const req = admit(fx, prompt(1, 40));
    for (const committed of [5, 13, 21, 29]) chunk(fx, req, committed);
    expect(req.kv.cacheProtectedLen).toBe(24);
    expect(fx.cache.protectedSize()).toBe(24);
    extend(fx, req, 35);
    expect(freedPages(fx, () => fx.cache.releaseRequest(req, { capTokens: cap }))).toEqual(pages);
    expect(fx.cache.totalSize()).toBe(kept);
    expect(fx.reqToToken.availableRows()).toBe(fx.geometry.rowCount);
    expectDrainsFull(fx);
  });
});

/** Runs `act` and expects the tree, allocator and request unchanged (a no-op call). */
function expectNoChange(fx: CacheFixture, req: Req, act: () => void): void {
  const kv = { ...req.kv };
  const lastNode = req.lastNode;
  const state = fx.pool.backupState();
  const sizes = [fx.cache.totalSize(), fx.cache.protectedSize()];
  const nodes = fx.cache.tree.nodeCount();
  act();
  expect(req.kv).toEqual(kv);
  expect(req.lastNode).toBe(lastNode);
  expect(fx.pool.backupState()).toEqual(state);
  expect([fx.cache.totalSize(), fx.cache.protectedSize()]).toEqual(sizes);
  expect(fx.cache.tree.nodeCount()).toBe(nodes);
}

/** A request extended to `allocated` whose committed length is then set back to `committed` (rejected speculative tokens). */
function speculative(committed: number, allocated: number): { fx: CacheFixture; req: Req } {
  const { fx, req } = oneRequest(allocated);
  req.kv.kvCommittedLen = committed;
  return { fx, req };
}

describe('prefix-cache:radix-cache,overallocated', () => {
  it.each([
    // committed, allocated → pages back, kvAllocatedLen after
    [16, 30, [3, 4], 16],
    [13, 30, [3, 4], 16],
    [10, 30, [3, 4], 16],
    [8, 30, [2, 3, 4], 8],
    [13, 14, [], 14],
    [13, 16, [], 16],
    [21, 21, [], 21],
    [0, 30, [1, 2, 3, 4], 0],
  ])('committed %i, allocated %i: gives back [ceil_to_page(committed, 8), allocated) → pages %j, kvAllocatedLen %i', (committed, allocated, pages, after) => {
    const { fx, req } = speculative(committed, allocated);
    expect(freedPages(fx, () => fx.cache.releaseOverallocated(req))).toEqual(pages);
    expect(req.kv).toMatchObject({ kvCommittedLen: committed, kvAllocatedLen: after });
  });

  it('under DCP (kernel 2 × DCP 4) the start is the allocator page 16, not the kernel page 10: the partial page stays for the finish', () => {
    const { fx, req } = speculative(10, 30);
    const calls = recordedBy(fx, () => fx.cache.releaseOverallocated(req));
    expect(calls).toEqual([['freeSegments', [[16, rowSlots(fx, req, 16, 30)]]]]);
    // Page 2 holds committed positions 8, 9 and went nowhere; the finish gives it back with the tail.
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req))).toEqual([2]);
    expectDrainsFull(fx, [req]);
  });
});

describe('prefix-cache:radix-cache,release-request', () => {
  it('finish, then the over-allocated tail, then the row; the allocator is full once the tree is evicted', () => {
    const { fx, req } = speculative(13, 30);
    const finishTail = rowSlots(fx, req, 8, 13);
    const overallocated = rowSlots(fx, req, 16, 30);
    const rowIdx = req.kv.reqPoolIdx;
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.releaseRequest(req, { capTokens: 10 }))).toEqual([2, 3, 4]));
    expect(calls).toEqual([
      ['freeSegments', [[8, finishTail]]],
      ['freeSegments', [[16, overallocated]]],
    ]);
    expect(fx.reqToToken.availableRows()).toBe(fx.geometry.rowCount);
    expect(() => fx.reqToToken.row(rowIdx)).toThrow(RequestStateError);
    expect(fx.cache.totalSize()).toBe(8);
    expect(fx.cache.protectedSize()).toBe(0);
    expectDrainsFull(fx);
  });

  it.each<[string, (cache: RadixCache, req: Req) => void]>([
    ['cacheFinishedReq', (cache, req) => cache.cacheFinishedReq(req)],
    ['releaseRequest', (cache, req) => cache.releaseRequest(req)],
    ['cacheUnfinishedReq', (cache, req) => cache.cacheUnfinishedReq(req)],
    ['releaseRanges', (cache, req) => cache.releaseRanges(req, [])],
    ['advanceSwaWindow', (cache, req) => cache.advanceSwaWindow(req, 4)],
  ])('after cacheFinishedReq, %s throws RequestStateError and changes nothing (a second finish would give the tree its own pages back)', (name, call) => {
    const { fx, req } = oneRequest(21);
    fx.cache.cacheFinishedReq(req);
    // releaseRequest is refused by the finish it starts with.
    const refusedBy = name === 'releaseRequest' ? 'cacheFinishedReq' : name;
    expectRejected(fx, req, () => call(fx.cache, req), RequestStateError, [`request ${req.id}`, `${refusedBy} after cacheFinishedReq`]);
    // The release goes on as the engine's does: the over-allocated tail, then the row.
    fx.cache.releaseOverallocated(req);
    fx.reqToToken.free(req.kv.reqPoolIdx);
    expectDrainsFull(fx);
  });

  it('a cap of 2 caches nothing: everything goes back without eviction', () => {
    const { fx, req } = speculative(13, 30);
    expect(freedPages(fx, () => fx.cache.releaseRequest(req, { capTokens: 2 }))).toEqual([1, 2, 3, 4]);
    expect(fx.pool.availableSize()).toBe(16 * 8);
    expect(fx.cache.totalSize()).toBe(0);
  });
});

describe('prefix-cache:radix-cache,release-ranges', () => {
  it('ranges split mid-page coalesce and give each page back once', () => {
    const { fx, req } = speculative(8, 30);
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.releaseRanges(req, [[8, 13], [13, 30]]))).toEqual([2, 3, 4]));
    expect(calls).toEqual([['freeSegments', [[8, rowSlots(fx, req, 8, 30)]]]]);
    req.kv.kvAllocatedLen = 8;
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req))).toEqual([]);
    expectDrainsFull(fx, [req]);
  });

  it('the floor is max(cacheProtectedLen, ceil_to_page(committed)): 16 for committed 10; 15 is refused, 16 is accepted', () => {
    const { fx, req } = speculative(10, 30);
    expectRejected(fx, req, () => fx.cache.releaseRanges(req, [[15, 30]]), RangeOrderError, ['[15, 30)', 'below 16']);
    expectRejected(fx, req, () => fx.cache.releaseRanges(req, [[16, 24], [24, 26], [8, 9]]), RangeOrderError, ['[8, 9)', 'below 16']);
    expect(freedPages(fx, () => fx.cache.releaseRanges(req, [[16, 30]]))).toEqual([3, 4]);
  });

  it('the floor under a protected prefix: committed 16 = cacheProtectedLen 16; 8 is refused', () => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 40));
    extend(fx, req, 30);
    req.kv.kvCommittedLen = 16;
    fx.cache.cacheUnfinishedReq(req);
    expect(req.kv.cacheProtectedLen).toBe(16);
    expectRejected(fx, req, () => fx.cache.releaseRanges(req, [[8, 30]]), RangeOrderError, ['[8, 30)', 'below 16']);
    expect(freedPages(fx, () => fx.cache.releaseRanges(req, [[16, 30]]))).toEqual([3, 4]);
  });

  it('an empty range below the floor is accepted and gives back nothing', () => {
    const { fx, req } = speculative(10, 30);
    expect(freedPages(fx, () => fx.cache.releaseRanges(req, [[3, 3], [16, 30]]))).toEqual([3, 4]);
  });

  it('gapped ranges that share a page throw SegmentError and change nothing', () => {
    const { fx, req } = speculative(8, 30);
    expectRejected(fx, req, () => fx.cache.releaseRanges(req, [[8, 9], [12, 30]]), SegmentError, ['segment at 12 shares a page with the one ending at 9']);
  });

  it('ranges past the allocated length or out of order throw RangeOrderError and change nothing', () => {
    const { fx, req } = speculative(8, 30);
    expectRejected(fx, req, () => fx.cache.releaseRanges(req, [[16, 31]]), RangeOrderError, ['[16, 31)', '[0, 30)']);
    expectRejected(fx, req, () => fx.cache.releaseRanges(req, [[16, 30], [8, 16]]), RangeOrderError, ['[8, 16)', 'ends at 30']);
    expect(freedPages(fx, () => fx.cache.releaseRanges(req, [[16, 30]]))).toEqual([3, 4]);
  });
});

describe('prefix-cache:radix-cache,swa-window', () => {
  it('the floor rises to floor_to_page(committed − max(window, page), 8) and never falls', () => {
    const { fx, req } = oneRequest(30);
    fx.cache.advanceSwaWindow(req, 4); // 30 − max(4, 8) = 22 → 16
    expect(req.kv.swaEvictedSeqlen).toBe(16);
    fx.cache.advanceSwaWindow(req, 20); // 30 − 20 = 10 → 8 < 16: stays
    expect(req.kv.swaEvictedSeqlen).toBe(16);
    fx.cache.advanceSwaWindow(req, 15); // 15 → 8: stays
    expect(req.kv.swaEvictedSeqlen).toBe(16);
    extend(fx, req, 40);
    fx.cache.advanceSwaWindow(req, 8); // 32 → 32
    expect(req.kv.swaEvictedSeqlen).toBe(32);
    fx.cache.advanceSwaWindow(req, 1); // 40 − 8 = 32
    expect(req.kv.swaEvictedSeqlen).toBe(32);
  });

  it.each([
    // committed, window → floor
    [5, 4, 0],
    [8, 4, 0],
    [15, 4, 0],
    [16, 4, 8],
    [16, 16, 0],
    [17, 9, 8],
    [30, 2, 16],
    [30, 12, 16],
    [30, 15, 8],
  ])('committed %i, window %i → floor %i (the allocator page, never the kernel page)', (committed, window, floor) => {
    const { fx, req } = oneRequest(committed);
    fx.cache.advanceSwaWindow(req, window);
    expect(req.kv.swaEvictedSeqlen).toBe(floor);
    expect(fx.pool.availableSize()).toBe((16 - Math.ceil(committed / 8)) * 8);
  });

  it.each([[0], [-1], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY]])('window %s throws ArgumentError and changes nothing; window 1 is fine', (window) => {
    const { fx, req } = oneRequest(30);
    expectRejected(fx, req, () => fx.cache.advanceSwaWindow(req, window), ArgumentError, [`windowTokens ${String(window)}`]);
    fx.cache.advanceSwaWindow(req, 1);
    expect(req.kv.swaEvictedSeqlen).toBe(16);
  });

  it('with a floor of 16 a capped finish splits the release into a dead and an alive call, each page once', () => {
    const { fx, req } = oneRequest(30);
    fx.cache.advanceSwaWindow(req, 4);
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: 10 }))).toEqual([2, 3, 4]));
    expect(calls).toEqual([
      ['freeSegments', [[8, rowSlots(fx, req, 8, 16)]]],
      ['freeSegments', [[16, rowSlots(fx, req, 16, 30)]]],
    ]);
    expect(fx.cache.totalSize()).toBe(8);
    expectDrainsFull(fx, [req]);
  });

  it('with a floor of 16 an uninserted finish gives back [0, 16) dead and [16, 30) alive', () => {
    const { fx, req } = oneRequest(30);
    fx.cache.advanceSwaWindow(req, 4);
    const calls = recordedBy(fx, () => expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { insert: false }))).toEqual([1, 2, 3, 4]));
    expect(calls).toEqual([
      ['freeSegments', [[0, rowSlots(fx, req, 0, 16)]]],
      ['freeSegments', [[16, rowSlots(fx, req, 16, 30)]]],
    ]);
  });
});

describe('prefix-cache:radix-cache,validation', () => {
  it.each([[1], [2], [4], [8], [undefined]])('kernelPageSize %s divides the allocator page 8: accepted', (kernelPageSize) => {
    const fx = cacheFixture();
    const cache = new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, ...(kernelPageSize === undefined ? {} : { kernelPageSize }) });
    expect(cache.kernelPageSize).toBe(kernelPageSize ?? 8);
    expect(cache.pageSize).toBe(8);
    expect(cache.finishPath).toBe('unified');
  });

  it.each([[3], [16], [0], [-2], [2.5]])('kernelPageSize %s does not divide the allocator page 8: CacheConfigError naming it, nothing built', (kernelPageSize) => {
    const fx = cacheFixture();
    const state = fx.pool.backupState();
    expect(() => new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, kernelPageSize })).toThrow(CacheConfigError);
    expect(() => new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, kernelPageSize })).toThrow(`kernelPageSize ${kernelPageSize} does not divide the allocator page 8`);
    expect(fx.pool.backupState()).toEqual(state);
  });

  it('an unknown finishPath throws CacheConfigError naming it', () => {
    const fx = cacheFixture();
    expect(() => new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, finishPath: 'legacy' as FinishPath })).toThrow(CacheConfigError);
    expect(() => new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, finishPath: 'legacy' as FinishPath })).toThrow("finishPath legacy is not 'unified' or 'classic'");
    expect(new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, finishPath: 'classic' }).finishPath).toBe('classic');
  });

  /** Every request-side entry point, for rules every one of them checks. */
  const entryPoints: [string, (cache: RadixCache, req: Req) => void][] = [
    ['cacheFinishedReq', (cache, req) => cache.cacheFinishedReq(req)],
    ['cacheUnfinishedReq', (cache, req) => cache.cacheUnfinishedReq(req)],
    ['releaseOverallocated', (cache, req) => cache.releaseOverallocated(req)],
    ['releaseRanges', (cache, req) => cache.releaseRanges(req, [])],
    ['releaseRequest', (cache, req) => cache.releaseRequest(req)],
    ['advanceSwaWindow', (cache, req) => cache.advanceSwaWindow(req, 4)],
  ];

  it.each(entryPoints)('%s: tokens shorter than committed (20 < 21) throw RequestStateError and change nothing; 21 tokens pass', (_name, call) => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 21));
    chunk(fx, req, 13);
    extend(fx, req, 21);
    const short: Req = { ...req, tokens: prompt(1, 20) };
    expectRejected(fx, short, () => call(fx.cache, short), RequestStateError, ['20 tokens', 'kvCommittedLen 21']);
    expect(req.lastNode).toBe(short.lastNode);
    call(fx.cache, req);
  });

  it.each(entryPoints)('%s: lengths out of order (committed 22 > allocated 21) throw RequestStateError and change nothing', (_name, call) => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 40));
    chunk(fx, req, 13);
    extend(fx, req, 21);
    req.kv.kvCommittedLen = 22;
    expectRejected(fx, req, () => call(fx.cache, req), RequestStateError, ['kvCommittedLen 22', 'kvAllocatedLen 21']);
  });

  it.each([[-1], [2.5], [Number.NaN], [Number.POSITIVE_INFINITY]])('capTokens %s throws RequestStateError naming it and changes nothing; cap 0 passes', (cap) => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 40));
    chunk(fx, req, 13);
    extend(fx, req, 21);
    expectRejected(fx, req, () => fx.cache.cacheFinishedReq(req, { capTokens: cap }), RequestStateError, [`capTokens ${cap}`]);
    expectRejected(fx, req, () => fx.cache.releaseRequest(req, { capTokens: cap }), RequestStateError, [`capTokens ${cap}`]);
    expect(freedPages(fx, () => fx.cache.cacheFinishedReq(req, { capTokens: 0 }))).toEqual([2, 3]);
    expectDrainsFull(fx, [req]);
  });

  it('passes the eviction policy and disabled flag to its tree, and refuses a bad one with CacheConfigError', () => {
    const fx = cacheFixture();
    expect(new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, evictionPolicy: 'fifo' }).tree.evictionPolicy).toBe('fifo');
    expect(new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, disabled: true }).tree.disabled).toBe(true);
    expect(() => new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, evictionPolicy: 'slru' as never })).toThrow(CacheConfigError);
    expect(() => new RadixCache({ allocator: fx.pool, reqToToken: fx.reqToToken, disabled: 'yes' as never })).toThrow(CacheConfigError);
  });

  it('a request row of another pool size: allocated past the row length throws before anything changes', () => {
    const fx = cacheFixture();
    const other = new ReqToTokenPool(1, 16);
    const cache = new RadixCache({ allocator: fx.recorder, reqToToken: other, kernelPageSize: 2 });
    const req = admit(fx, prompt(1, 40));
    extend(fx, req, 21);
    expectRejected(fx, req, () => cache.cacheFinishedReq(req), RequestStateError, ['kvAllocatedLen 21', 'row length 16']);
  });

  // The two tests below expose validation-order bugs (STYLE rule 9: a rejected call changes nothing).
  it('a fractional kvCommittedLen (12.5) is refused before the tree or the allocator changes', () => {
    const fx = cacheFixture();
    const req = admit(fx, prompt(1, 40));
    extend(fx, req, 13);
    req.kv.kvCommittedLen = 12.5;
    // Today checkReqKvInfo lets 12.5 through; the finish inserts [0, 8) into the tree and only then
    // throws RangeOrderError from coalesceRanges, leaving the tree holding the request's page 1.
    expectRejected(fx, req, () => fx.cache.cacheFinishedReq(req), RequestStateError, ['12.5']);
  });

  it('classic path: a token that is not an int32 is refused before the truncation tail goes back', () => {
    const fx = cacheFixture({ finishPath: 'classic' });
    const tokens = prompt(1, 40);
    tokens[3] = 2.5;
    const req = admit(fx, tokens);
    extend(fx, req, 21);
    // Today the truncation tail [8, 21) (pages 2, 3) is freed first, then insert throws CacheConfigError.
    expectRejected(fx, req, () => fx.cache.cacheFinishedReq(req, { capTokens: 8 }), CacheConfigError, ['token 2.5 at position 3']);
  });
});
