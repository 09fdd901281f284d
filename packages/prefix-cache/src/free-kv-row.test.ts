import { describe, expect, it } from 'vitest';
import { DoubleFreeError, PagedAllocator, SegmentError } from '@kvfuzz/allocator-core';
import { PageSplitError, RangeOrderError } from './errors.js';
import { freeKvRow } from './free-kv-row.js';

/**
 * The geometry of the engine's test_free_kv_row_coalesce.py: page 8 (= 512 / 64), 16 pages, one
 * request row = alloc(24) = pages 1, 2, 3.
 */
function seamFixture(checks: boolean) {
  const allocator = new PagedAllocator({ sizeTokens: 128, kernelPageSize: 8, checks });
  const row = allocator.alloc(24) as Int32Array;
  return { allocator, row };
}

describe('prefix-cache:free-kv-row,seam', () => {
  it.each([true, false])('adjacent ranges split mid-page free every page exactly once (checks %s)', (checks) => {
    const { allocator, row } = seamFixture(checks);
    const before = allocator.inspect().free.length;
    // Kept prefix [0, 8); unaligned tail [8, 9); deferred truncation tail [9, 24): they meet at 9 inside row page 1.
    freeKvRow(allocator, row, 24, 0, [[8, 9], [9, 24]]);
    const free = allocator.inspect().free;
    const fresh = Array.from(free.subarray(0, free.length - before)).sort((a, b) => a - b);
    expect(fresh).toEqual([...new Set(Array.from(row.subarray(8), (s) => Math.floor(s / 8)))].sort((a, b) => a - b));
    expect(fresh).toEqual([2, 3]);
  });

  it('non-adjacent ranges sharing a page are still rejected, and nothing is freed', () => {
    const { allocator, row } = seamFixture(true);
    const state = allocator.backupState();
    expect(() => freeKvRow(allocator, row, 24, 0, [[8, 9], [12, 24]])).toThrow(SegmentError);
    expect(allocator.backupState()).toEqual(state);
  });

  it('the production geometry: kernel page 64 × DCP 8, cap 576 on a 1100-token request', () => {
    const allocator = new PagedAllocator({ sizeTokens: 512 * 8, kernelPageSize: 64, dcpSize: 8, checks: true });
    const row = allocator.alloc(1536) as Int32Array; // pages a, b, c for positions [0, 1536)
    const availBefore = allocator.availableSize();
    freeKvRow(allocator, row, 1100, 0, [[512, 576], [576, 1100]]);
    expect(allocator.availableSize()).toBe(availBefore + 2 * 512);
    // Without coalescing the same two ranges are the seed crash.
    expect(() => allocator.freeSegments([{ indices: row.slice(512, 576), startPos: 512 }, { indices: row.slice(576, 1100), startPos: 576 }])).toThrow(
      "segment at 576 shares a page with the one ending at 576",
    );
  });

  it('rejects unordered ranges before the allocator sees them', () => {
    const { allocator, row } = seamFixture(true);
    expect(() => freeKvRow(allocator, row, 24, 0, [[9, 24], [8, 9]])).toThrow(RangeOrderError);
    expect(allocator.availableSize()).toBe(13 * 8);
  });
});

describe('prefix-cache:free-kv-row,swa-split', () => {
  it('splits at an aligned SWA floor into a dead and an alive call, each page once', () => {
    const { allocator, row } = seamFixture(true);
    freeKvRow(allocator, row, 24, 8, [[0, 24]]);
    expect(allocator.availableSize()).toBe(16 * 8);
  });

  it('rejects a floor that splits a page when both parts exist, before freeing anything', () => {
    const { allocator, row } = seamFixture(true);
    expect(() => freeKvRow(allocator, row, 24, 12, [[0, 24]])).toThrow(PageSplitError);
    expect(() => freeKvRow(allocator, row, 24, 12, [[0, 24]])).toThrow('SWA eviction floor 12 splits a page (page_size 8)');
    expect(allocator.availableSize()).toBe(13 * 8);
  });

  it('accepts an unaligned floor when every part is on one side of it', () => {
    const { allocator, row } = seamFixture(true);
    freeKvRow(allocator, row, 24, 12, [[16, 24]]);
    expect(allocator.availableSize()).toBe(14 * 8);
  });

  it('with the floor check gone, the split page would be given back twice (the in-line check catches it)', () => {
    const { allocator, row } = seamFixture(true);
    allocator.freeSegments([{ indices: row.slice(0, 12), startPos: 0 }]);
    expect(() => allocator.freeSegments([{ indices: row.slice(8, 24), startPos: 8 }])).toThrow(DoubleFreeError);
  });
});
