import { describe, expect, it } from 'vitest';
import { FreeGroupError } from './errors.js';
import { PagedAllocator } from './paged-allocator.js';
import { TokenAllocator } from './token-allocator.js';
import { range, slotsOfPages } from './test-support/rows.js';

// Free groups (`allocator/base.py`, `allocator/paged.py`): frees inside a group wait for
// freeGroupEnd, which releases the group's plain frees as one deduplicated, sorted free, then its
// segment representatives as queued.
function paged(needSort = false): PagedAllocator {
  return new PagedAllocator({ sizeTokens: 64, kernelPageSize: 4, needSort, checks: true });
}

describe('allocator-core:free-groups,paged', () => {
  it('holds every free until the group ends', () => {
    const allocator = paged();
    const held = Array.from(allocator.alloc(16) ?? []);
    const before = allocator.inspect();
    allocator.freeGroupBegin();
    allocator.free(held.slice(0, 4));
    allocator.freeSegments([{ indices: held.slice(4), startPos: 0 }]);
    expect(allocator.availableSize()).toBe(48);
    expect(allocator.inspect()).toEqual(before);
    allocator.freeGroupEnd();
    expect(allocator.availableSize()).toBe(64);
  });

  it('releases plain frees (sorted, once per page) before segment representatives (in row order)', () => {
    const allocator = paged();
    allocator.alloc(24); // pages 1 … 6
    allocator.freeGroupBegin();
    // A row laid on pages 6 then 5, given back as one segment: representatives [6, 5].
    allocator.freeSegments([{ indices: slotsOfPages([6, 5], 4), startPos: 0 }]);
    allocator.free(slotsOfPages([3], 4));
    allocator.free([11, 4, 8, 5, 9]); // pages 2 and 1, several slots each
    allocator.freeGroupEnd();
    // Plain [3, 2, 1] released sorted first (front: 1, 2, 3), then the representatives 6, 5 in front of them.
    expect(Array.from(allocator.inspect().free)).toEqual([6, 5, 1, 2, 3, ...range(7, 16)]);
    expect(allocator.availableSize()).toBe(64 - 4);
    allocator.verifyInvariants();
  });

  it('under needSort, stages the released pages in the same order', () => {
    const allocator = paged(true);
    allocator.alloc(24);
    allocator.freeGroupBegin();
    allocator.freeSegments([{ indices: slotsOfPages([6, 5], 4), startPos: 0 }]);
    allocator.free(slotsOfPages([3, 1], 4));
    allocator.freeGroupEnd();
    expect(Array.from(allocator.inspect().staged)).toEqual([1, 3, 6, 5]);
    expect(Array.from(allocator.inspect().free)).toEqual(range(7, 16));
  });

  it('copies the indices at call time: overwriting the caller\'s arrays before the end changes nothing', () => {
    const allocator = paged();
    allocator.alloc(16); // pages 1 … 4
    const plain = Int32Array.from(slotsOfPages([1], 4));
    const segment = Int32Array.from(slotsOfPages([2], 4));
    allocator.freeGroupBegin();
    allocator.free(plain);
    allocator.freeSegments([{ indices: segment, startPos: 0 }]);
    plain.fill(12); // page 3
    segment.fill(16); // page 4
    allocator.freeGroupEnd();
    expect(Array.from(allocator.inspect().free)).toEqual([2, 1, ...range(5, 16)]);
  });

  it('an empty group releases nothing', () => {
    const allocator = paged();
    allocator.alloc(8);
    const before = allocator.backupState();
    allocator.freeGroupBegin();
    allocator.freeGroupEnd();
    expect(allocator.backupState()).toEqual(before);
  });

  it('allocations inside a group see only what was free before it', () => {
    const allocator = paged();
    const held = allocator.alloc(64) ?? new Int32Array(0);
    allocator.freeGroupBegin();
    allocator.free(held.subarray(0, 4));
    expect(allocator.alloc(4)).toBeNull();
    allocator.freeGroupEnd();
    expect(Array.from(allocator.alloc(4) ?? [])).toEqual([4, 5, 6, 7]);
  });

  it('a new group starts empty after the previous one ended', () => {
    const allocator = paged();
    allocator.alloc(16);
    allocator.freeGroupBegin();
    allocator.free(slotsOfPages([1], 4));
    allocator.freeGroupEnd();
    allocator.freeGroupBegin();
    allocator.free(slotsOfPages([2], 4));
    allocator.freeGroupEnd();
    expect(Array.from(allocator.inspect().free)).toEqual([2, 1, ...range(5, 16)]);
    allocator.verifyInvariants();
  });

  it('clear drops the queued frees and closes the group', () => {
    const allocator = paged();
    allocator.alloc(8);
    allocator.freeGroupBegin();
    allocator.free([4]);
    allocator.clear();
    expect(() => allocator.freeGroupEnd()).toThrow(FreeGroupError);
    expect(Array.from(allocator.inspect().free)).toEqual(range(1, 16));
    allocator.verifyInvariants();
  });
});

describe('allocator-core:free-groups,token', () => {
  it('appends the group\'s frees at the back in the order given, segments included', () => {
    const allocator = new TokenAllocator({ sizeTokens: 16, needSort: false, checks: true });
    allocator.alloc(8);
    allocator.freeGroupBegin();
    allocator.free([3, 1]);
    allocator.freeSegments([{ indices: [5, 6], startPos: 0 }]);
    expect(allocator.availableSize()).toBe(8);
    allocator.freeGroupEnd();
    expect(Array.from(allocator.inspect().free)).toEqual([...range(9, 16), 3, 1, 5, 6]);
    expect(allocator.availableSize()).toBe(12);
  });
});
