import { describe, expect, it } from 'vitest';
import { ConfigError, SlotRangeError } from './errors.js';
import { TokenAllocator } from './token-allocator.js';
import { expectRejected } from './test-support/expect-rejected.js';
import { range } from './test-support/rows.js';

// The engine's test_allocator_cpu.py expectations for the token allocator (`allocator/token.py`):
// size 16 unless noted, page size 1, slot 0 reserved.
function token(sizeTokens = 16, needSort = false): TokenAllocator {
  return new TokenAllocator({ sizeTokens, needSort, checks: true });
}

describe('allocator-core:token,alloc', () => {
  it('alloc(5) returns 5 unique slots from the front and leaves 11 available', () => {
    const allocator = token();
    const slots = allocator.alloc(5);
    expect(Array.from(slots ?? [])).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(slots).size).toBe(5);
    expect(allocator.availableSize()).toBe(11);
  });

  it('takes exactly its capacity (16 slots), then nothing more', () => {
    const allocator = token();
    expect(Array.from(allocator.alloc(16) ?? [])).toEqual(range(1, 16));
    expect(allocator.availableSize()).toBe(0);
    expect(allocator.alloc(1)).toBeNull();
  });

  it('returns null over capacity (17 of 16) and changes nothing', () => {
    const allocator = token();
    const before = allocator.backupState();
    expect(allocator.alloc(17)).toBeNull();
    expect(allocator.backupState()).toEqual(before);
    expect(allocator.availableSize()).toBe(16);
  });

  it('returns null over capacity with needSort too (size 4, alloc 8)', () => {
    const allocator = token(4, true);
    expect(allocator.alloc(8)).toBeNull();
    expect(allocator.availableSize()).toBe(4);
  });

  it('alloc(0) returns an empty array and changes nothing', () => {
    const allocator = token();
    allocator.alloc(3);
    const before = allocator.backupState();
    const slots = allocator.alloc(0);
    expect(slots).toBeInstanceOf(Int32Array);
    expect(slots).toHaveLength(0);
    expect(allocator.backupState()).toEqual(before);
    expect(allocator.availableSize()).toBe(13);
  });

  it('hands out disjoint slots to sequential allocations', () => {
    const allocator = token();
    const all = [allocator.alloc(3), allocator.alloc(4), allocator.alloc(5)].flatMap((slots) => Array.from(slots ?? []));
    expect(all).toHaveLength(12);
    expect(new Set(all).size).toBe(12);
  });

  it('never returns slot 0, also after everything was freed and taken again', () => {
    const allocator = token();
    const first = allocator.alloc(16) ?? new Int32Array(0);
    expect(Array.from(first)).not.toContain(0);
    allocator.free(first);
    expect(Array.from(allocator.alloc(16) ?? [])).not.toContain(0);
  });
});

describe('allocator-core:token,reuse', () => {
  it('puts freed slots at the back of the free list (FIFO reuse), in the order given', () => {
    const allocator = token();
    allocator.alloc(4);
    allocator.free([3, 1]);
    expect(Array.from(allocator.inspect().free)).toEqual([...range(5, 16), 3, 1]);
    expect(Array.from(allocator.alloc(12) ?? [])).toEqual(range(5, 16));
    expect(Array.from(allocator.alloc(2) ?? [])).toEqual([3, 1]);
  });

  // Both modes: the plain free writes straight to the back of the list when the call names no
  // more slots than are held, and dedupes through scratch otherwise.
  it.each([true, false])('gives a slot named twice in one call back once (checks %s)', (checks) => {
    const allocator = new TokenAllocator({ sizeTokens: 16, needSort: false, checks });
    allocator.alloc(2);
    allocator.free([2, 2]);
    expect(allocator.availableSize()).toBe(15);
    expect(Array.from(allocator.inspect().free)).toEqual([...range(3, 16), 2]);
  });

  it.each([true, false])('gives back once each slot of a call naming more slots than are held (checks %s)', (checks) => {
    const allocator = new TokenAllocator({ sizeTokens: 16, needSort: false, checks });
    allocator.alloc(2);
    allocator.free([2, 1, 2, 1]);
    expect(allocator.availableSize()).toBe(16);
    expect(Array.from(allocator.inspect().free)).toEqual([...range(3, 16), 2, 1]);
  });

  it('without needSort, a free of 4 slots of an 8-slot pool makes 8 free slots at once', () => {
    const allocator = token(8);
    allocator.free(allocator.alloc(4) ?? []);
    expect(allocator.inspect().free).toHaveLength(8);
    expect(allocator.inspect().staged).toHaveLength(0);
  });

  it('treats freeSegments as a plain free (the engine base class), appending in row order', () => {
    const allocator = token();
    const row = allocator.alloc(4) ?? new Int32Array(0);
    allocator.freeSegments([
      { indices: row.subarray(0, 2), startPos: 0 },
      { indices: row.subarray(2), startPos: 2 },
    ]);
    expect(Array.from(allocator.inspect().free)).toEqual([...range(5, 16), 1, 2, 3, 4]);
  });
});

describe('allocator-core:token,need-sort', () => {
  it('stages a free (4 slots) and merges it when a later alloc(8) of an 8-slot pool runs short', () => {
    const allocator = token(8, true);
    const slots = allocator.alloc(4) ?? new Int32Array(0);
    allocator.free(slots);
    expect(Array.from(allocator.inspect().staged)).toEqual([1, 2, 3, 4]);
    expect(Array.from(allocator.inspect().free)).toEqual([5, 6, 7, 8]);
    expect(allocator.availableSize()).toBe(8);
    expect(Array.from(allocator.alloc(8) ?? [])).toEqual(range(1, 8));
    expect(allocator.availableSize()).toBe(0);
  });

  it('leaves staged slots alone while the free list suffices', () => {
    const allocator = token(8, true);
    allocator.free(allocator.alloc(4) ?? []);
    expect(Array.from(allocator.alloc(4) ?? [])).toEqual([5, 6, 7, 8]);
    expect(Array.from(allocator.inspect().staged)).toEqual([1, 2, 3, 4]);
  });

  it('returns null without merging when even the staged slots would not do (newer token allocator)', () => {
    const allocator = token(8, true);
    allocator.alloc(4);
    allocator.free([2, 1]);
    expect(allocator.alloc(7)).toBeNull();
    expect(Array.from(allocator.inspect().free)).toEqual([5, 6, 7, 8]);
    expect(Array.from(allocator.inspect().staged)).toEqual([2, 1]);
  });

  it('merges free [6, 5] with staged [3, 1, 2] sorted: [1, 2, 3, 5, 6]', () => {
    // The engine test sets the lists directly; here a FIFO allocator of the same geometry builds
    // the free list [6, 5] and its snapshot is restored into the needSort allocator.
    const fifo = token(6);
    fifo.alloc(6);
    fifo.free([6]);
    fifo.free([5]);
    const allocator = token(6, true);
    allocator.restoreState(fifo.backupState());
    expect(Array.from(allocator.inspect().free)).toEqual([6, 5]);
    allocator.free([3, 1, 2]);
    expect(Array.from(allocator.inspect().staged)).toEqual([3, 1, 2]);
    expect(Array.from(allocator.alloc(5) ?? [])).toEqual([1, 2, 3, 5, 6]);
  });
});

describe('allocator-core:token,extend-decode', () => {
  it('allocExtend takes slots from the front in batch order', () => {
    const allocator = token();
    const prefix = allocator.alloc(2) ?? new Int32Array(0);
    const slots = allocator.allocExtend({ prefixLens: [2, 0], seqLens: [5, 2], lastLoc: [prefix[1] ?? -1, -1] });
    expect(Array.from(slots ?? [])).toEqual([3, 4, 5, 6, 7]);
    expect(allocator.availableSize()).toBe(9);
  });

  it('allocDecode takes one slot per request from the front', () => {
    const allocator = token();
    allocator.alloc(2);
    const slots = allocator.allocDecode({ seqLens: [3, 1], lastLoc: [2, -1] });
    expect(Array.from(slots ?? [])).toEqual([3, 4]);
    expect(allocator.availableSize()).toBe(12);
  });

  it('allocExtend returns null when short and changes nothing', () => {
    const allocator = token(4);
    const before = allocator.backupState();
    expect(allocator.allocExtend({ prefixLens: [0], seqLens: [5], lastLoc: [-1] })).toBeNull();
    expect(allocator.backupState()).toEqual(before);
  });
});

// At page size 1 the engine's scheduler routes extends and decodes through the token allocator's
// `alloc` (`alloc_for_extend` / `alloc_for_decode` in mem_cache/common.py): staged slots are merged
// only when the request exceeds the free list, never by the paged extend heuristic.
describe('allocator-core:token,scheduler-routing', () => {
  it('an extend with needSort takes from the free list without merging while it suffices (pool of 2)', () => {
    const allocator = token(2, true);
    const first = allocator.allocExtend({ prefixLens: [0], seqLens: [1], lastLoc: [-1] });
    expect(Array.from(first ?? [])).toEqual([1]);
    allocator.free(first ?? []);
    // The paged heuristic (1 / 1 + 1 + 1 > 1 free) would merge and hand out slot 1 again; alloc(1) does not.
    expect(Array.from(allocator.allocExtend({ prefixLens: [0], seqLens: [1], lastLoc: [-1] }) ?? [])).toEqual([2]);
  });

  it('a decode with needSort takes from the free list without merging while it suffices', () => {
    const allocator = token(2, true);
    const first = allocator.allocDecode({ seqLens: [1], lastLoc: [-1] });
    expect(Array.from(first ?? [])).toEqual([1]);
    allocator.free(first ?? []);
    expect(Array.from(allocator.allocDecode({ seqLens: [1], lastLoc: [-1] }) ?? [])).toEqual([2]);
  });

  it('merges sorted when the free list runs short and the staged slots make up the difference', () => {
    const allocator = token(3, true);
    const all = allocator.alloc(3) ?? new Int32Array(0);
    allocator.free([3, 1]);
    expect(Array.from(allocator.allocExtend({ prefixLens: [0], seqLens: [2], lastLoc: [-1] }) ?? [])).toEqual([1, 3]);
    allocator.free([2]);
    expect(Array.from(allocator.allocDecode({ seqLens: [1], lastLoc: [-1] }) ?? [])).toEqual([2]);
    expect(all.length).toBe(3);
  });

  it('returns null without merging when even the staged slots would not do', () => {
    const allocator = token(2, true);
    allocator.alloc(2);
    allocator.free([2]);
    expect(allocator.allocExtend({ prefixLens: [0, 0], seqLens: [1, 1], lastLoc: [-1, -1] })).toBeNull();
    expect(allocator.allocDecode({ seqLens: [1, 1], lastLoc: [-1, -1] })).toBeNull();
    // Nothing merged: the slot is still staged (the paged decode rule would have merged it into the free list).
    expect(Array.from(allocator.inspect().staged)).toEqual([2]);
    expect(Array.from(allocator.inspect().free)).toEqual([]);
    expect(allocator.availableSize()).toBe(1);
    expect(Array.from(allocator.alloc(1) ?? [])).toEqual([2]);
  });
});

describe('allocator-core:token,slot-range', () => {
  // A plain array's slots are not known to be integers: the checked free names each bad one, the
  // string '3' too (an Int32Array would have coerced it, a tag lookup would have read page 3).
  it('refuses a plain array with slots 17 (past the pool), -1, 4.5, NaN or the string 3, naming them; changes nothing', () => {
    for (const bad of [17, -1, 4.5, Number.NaN, '3']) {
      const allocator = token();
      allocator.alloc(8);
      const error = expectRejected(allocator, () => allocator.free([1, bad as number, 2]), SlotRangeError, [`[${String(bad)}]`]);
      expect(error.slots).toEqual([bad]);
    }
  });

  it('control: the same plain array of held slots is freed, appended in the order given', () => {
    const allocator = token();
    allocator.alloc(8);
    allocator.free([1, 3, 2]);
    expect(Array.from(allocator.inspect().free.subarray(-3))).toEqual([1, 3, 2]);
  });
});

describe('allocator-core:token,config', () => {
  it('refuses a page size other than 1', () => {
    expect(() => new TokenAllocator({ sizeTokens: 16, kernelPageSize: 2, checks: true })).toThrow(ConfigError);
    expect(() => new TokenAllocator({ sizeTokens: 16, dcpSize: 2, checks: true })).toThrow(/needs page size 1, got 2/);
  });
});
