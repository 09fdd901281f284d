import { PagedAllocator } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { ChunkCache } from './chunk-cache.js';
import { RequestStateError } from './errors.js';
import { newReqKvInfo } from './req-kv-info.js';
import { ReqToTokenPool } from './req-to-token-pool.js';
import type { Req } from './request.js';
import { RecordingAllocator } from './test-support/recording-allocator.js';

/** Page 8 (kernel 2 × DCP 4), 16 pages; one request with its row extended to `allocated` (pages 1, 2, …). */
function chunkFixture(allocated: number) {
  const pool = new PagedAllocator({ sizeTokens: 128, kernelPageSize: 2, dcpSize: 4, needSort: false, checks: true });
  const recorder = RecordingAllocator.wrapping(pool);
  const reqToToken = new ReqToTokenPool(2, 64);
  const cache = new ChunkCache(recorder, reqToToken);
  const rowIdx = reqToToken.alloc() as number;
  const slots = pool.allocExtend({ prefixLens: [0], seqLens: [allocated], lastLoc: [-1] }) as Int32Array;
  reqToToken.write(rowIdx, 0, slots);
  const req: Req = { id: 0, tokens: Array.from({ length: allocated }, (_, i) => i), extraKey: null, kv: newReqKvInfo(rowIdx, 0), lastNode: null };
  req.kv.kvCommittedLen = allocated;
  req.kv.kvAllocatedLen = allocated;
  return { pool, recorder, reqToToken, cache, req, slots: Array.from(slots) };
}

describe('prefix-cache:chunk-cache', () => {
  it('matches nothing and holds nothing: sizes are 0, evict evicts nothing, lock is a no-op', () => {
    const { cache, recorder } = chunkFixture(21);
    const match = cache.matchPrefix();
    expect(Array.from(match.indices)).toEqual([]);
    expect(match.lastNode).toBeNull();
    cache.lock();
    expect([cache.evictableSize(), cache.protectedSize(), cache.totalSize(), cache.evict()]).toEqual([0, 0, 0, 0]);
    expect(recorder.calls).toEqual([]);
  });

  it.each([[21], [24], [1]])('a finish of a %i-token request gives back [0, committed) in one call', (committed) => {
    const { pool, recorder, cache, req, slots } = chunkFixture(committed);
    cache.cacheFinishedReq(req, { capTokens: 2 });
    expect(recorder.calls).toEqual([{ op: 'freeSegments', segments: [{ slots, startPos: 0 }] }]);
    expect(pool.availableSize()).toBe(16 * 8);
    pool.verifyInvariants();
  });

  it('an unfinished request keeps everything', () => {
    const { pool, recorder, cache, req } = chunkFixture(21);
    const kv = { ...req.kv };
    cache.cacheUnfinishedReq();
    expect(recorder.calls).toEqual([]);
    expect(req.kv).toEqual(kv);
    expect(pool.availableSize()).toBe(13 * 8);
  });

  it('with an SWA floor of 8 the finish gives back [0, 8) dead and [8, 21) alive', () => {
    const { pool, recorder, cache, req, slots } = chunkFixture(21);
    req.kv.swaEvictedSeqlen = 8;
    cache.cacheFinishedReq(req);
    expect(recorder.calls).toEqual([
      { op: 'freeSegments', segments: [{ slots: slots.slice(0, 8), startPos: 0 }] },
      { op: 'freeSegments', segments: [{ slots: slots.slice(8), startPos: 8 }] },
    ]);
    expect(pool.availableSize()).toBe(16 * 8);
  });

  it('a second finish throws RequestStateError naming the request and gives nothing back', () => {
    const { pool, recorder, cache, req } = chunkFixture(21);
    cache.cacheFinishedReq(req);
    const calls = recorder.calls.length;
    const state = pool.backupState();
    expect(() => cache.cacheFinishedReq(req)).toThrow(RequestStateError);
    expect(() => cache.cacheFinishedReq(req)).toThrow(`request ${req.id}: cacheFinishedReq after cacheFinishedReq`);
    expect(recorder.calls.length).toBe(calls);
    expect(pool.backupState()).toEqual(state);
  });

  it('a request record out of order throws RequestStateError before anything is given back', () => {
    const { pool, recorder, cache, req } = chunkFixture(21);
    req.kv.kvCommittedLen = 22;
    const state = pool.backupState();
    expect(() => cache.cacheFinishedReq(req)).toThrow(RequestStateError);
    expect(() => cache.cacheFinishedReq(req)).toThrow('kvCommittedLen 22 ≤ kvAllocatedLen 21');
    expect(recorder.calls).toEqual([]);
    expect(pool.backupState()).toEqual(state);
  });
});
