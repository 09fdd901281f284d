import { ArgumentError } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { HostDoubleAllocError, HostDoubleFreeError } from './errors.js';
import { HostSlotPool } from './host-slot-pool.js';
import { expectRejected } from './test-support/expect-rejected.js';
import { ProbedHostSlotPool } from './test-support/probed-pool.js';

// The engine's own host pool tests (test_mem_pool_host.py), step for step, with the engine's
// messages word for word.
//
// Geometry: a device pool of 4 slots with page 2 and host_to_device_ratio 2 asks for 8 host
// tokens; 8 // 2 + 1 = 5 pages = 10 slots.
function enginePool(): ProbedHostSlotPool {
  return new ProbedHostSlotPool({ sizeTokens: 4 * 2, pageSize: 2, dcpSize: 1, checks: true });
}

const list = (slots: Int32Array | null): number[] => Array.from(slots ?? []);

describe('host-pool:engine,mem-pool-host', () => {
  it('the geometry: 8 requested tokens on page 2 make 5 pages, 10 slots, all free', () => {
    const pool = enginePool();
    expect(pool.pageCount).toBe(5);
    expect(pool.size).toBe(10);
    expect(pool.availableSize()).toBe(10);
  });

  it('test_double_alloc: a held slot pushed back onto the head of the free list is refused', () => {
    const pool = enginePool();
    const indices = pool.alloc(4);
    expect(list(indices)).toEqual([0, 1, 2, 3]);
    const slot = indices?.[0] as number;
    pool.pushFront(slot);
    const error = expectRejected(pool, () => pool.alloc(4), HostDoubleAllocError, `Double-alloc detected: slots already allocated: [${slot}].`);
    expect(error.slots).toEqual([slot]);
  });

  it('test_alloc_prefers_contiguous_run: [0, 1, 6, 7, 8, 9] hands out [6, 7, 8, 9] and leaves [0, 1]', () => {
    const pool = enginePool();
    expect(list(pool.alloc(10))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    pool.free([0, 1]);
    pool.free([6, 7, 8, 9]);
    expect(list(pool.alloc(4))).toEqual([6, 7, 8, 9]);
    expect(list(pool.inspect().free)).toEqual([0, 1]);
    expect(pool.inspect().pending).toEqual([]);
    pool.verifyInvariants();
  });

  it('test_double_free: freeing indices[1:] after indices[:2] names [indices[1]]', () => {
    const pool = enginePool();
    const indices = pool.alloc(4) as Int32Array;
    pool.free(indices.slice(0, 2));
    const error = expectRejected(
      pool,
      () => pool.free(indices.slice(1)),
      HostDoubleFreeError,
      `Double-free detected: slots not currently allocated: [${indices[1]}].`,
    );
    expect(error.slots).toEqual([indices[1]]);
  });

  it('test_free_unallocated: a fresh pool refuses free([1]) naming [1]', () => {
    const pool = enginePool();
    expectRejected(pool, () => pool.free([1]), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [1].');
  });

  it('test_free_after_clear: slots allocated before clear() are all named when freed after it', () => {
    const pool = enginePool();
    const indices = pool.alloc(4) as Int32Array;
    pool.clear();
    expectRejected(pool, () => pool.free(indices), HostDoubleFreeError, `Double-free detected: slots not currently allocated: [${list(indices).join(', ')}].`);
    expect(list(indices)).toEqual([0, 1, 2, 3]);
  });

  it('test_empty_free_keeps_release_list_empty: free([]) returns 0 and records nothing', () => {
    const pool = enginePool();
    expect(pool.free([])).toBe(0);
    expect(pool.free(new Int32Array(0))).toBe(0);
    expect(pool.inspect().pending).toEqual([]);
    expect(pool.availableSize()).toBe(10);
  });
});

// TestLazyHostPoolRelease: a pool of 8 slots on page 1. With the extra page, 7 requested tokens
// make 7 // 1 + 1 = 8 pages.
describe('host-pool:engine,lazy-release', () => {
  it('frees wait in the release list until an allocation runs short, then merge in release order', () => {
    const pool = new ProbedHostSlotPool({ sizeTokens: 7, pageSize: 1, dcpSize: 1, checks: true });
    expect(pool.size).toBe(8);
    expect(pool.free([])).toBe(0);

    const first = pool.alloc(6) as Int32Array;
    expect(list(first)).toEqual([0, 1, 2, 3, 4, 5]);
    const freeBefore = pool.inspect().free;
    expect(pool.free([0, 1])).toBe(2);
    expect(pool.inspect().free).toEqual(freeBefore); // the free list is untouched
    expect(pool.inspect().pending.map(list)).toEqual([[0, 1]]);
    expect(pool.availableSize()).toBe(4);

    expect(list(pool.alloc(2))).toEqual([6, 7]); // the free list first
    expect(pool.inspect().pending.map(list)).toEqual([[0, 1]]); // still 2 pending
    expect(list(pool.alloc(2))).toEqual([0, 1]); // short: merged
    expect(pool.availableSize()).toBe(0);
    pool.verifyInvariants();

    pool.free([2, 3, 4, 5]);
    pool.free([6, 7]);
    pool.free([0, 1]);
    pool.clear();
    expect(pool.availableSize()).toBe(8);

    expect(list(pool.alloc(8))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    pool.free([0, 1]);
    pool.free([2, 3]);
    expect(pool.inspect().pending.map(list)).toEqual([[0, 1], [2, 3]]); // two chunks
    expect(list(pool.alloc(4))).toEqual([0, 1, 2, 3]);
    expect(pool.inspect().pending).toEqual([]);
    pool.verifyInvariants();
  });

  it('the logical pool of 8 slots on page 2 refuses alloc(1)', () => {
    // 6 requested tokens: 6 // 2 + 1 = 4 pages = 8 slots.
    const pool = new HostSlotPool({ sizeTokens: 6, pageSize: 2, dcpSize: 1, checks: true });
    expect(pool.size).toBe(8);
    expectRejected(pool, () => pool.alloc(1), ArgumentError, 'The requested size should be a multiple of the page size. Got alloc size 1, page size 2.');
  });
});
