import { describe, expect, it } from 'vitest';
import { DoubleFreeError, FreeGroupError, LastLocError, SegmentError } from '../errors.js';
import { createReferenceAllocator, plainReferenceProvider } from './create-reference-allocator.js';
import { ReferenceAllocator } from './reference-allocator.js';

const list = (a: ReferenceAllocator): { free: number[]; staged: number[] } => {
  const { free, staged } = a.inspect();
  return { free: Array.from(free), staged: Array.from(staged) };
};

/** The plain reference against the engine's own unit-test expectations, one rule at a time. */
describe('allocator-core:reference,engine-examples', () => {
  it('gives back pages to the front at page 4 (LIFO), or stages them under needSort', () => {
    for (const needSort of [false, true]) {
      const a = createReferenceAllocator({ sizeTokens: 16, kernelPageSize: 4, needSort, checks: true });
      const out = a.alloc(8) as Int32Array;
      expect(Array.from(out)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
      a.free(out);
      expect(list(a)).toEqual(needSort ? { free: [3, 4], staged: [1, 2] } : { free: [1, 2, 3, 4], staged: [] });
      expect(a.availableSize()).toBe(16);
    }
  });

  it('gives back slots to the back at page 1 (FIFO), each once, in the order first named', () => {
    const a = createReferenceAllocator({ sizeTokens: 6, needSort: false, checks: false });
    const out = a.alloc(3) as Int32Array;
    expect(Array.from(out)).toEqual([1, 2, 3]);
    a.free([3, 1, 3]);
    expect(list(a)).toEqual({ free: [4, 5, 6, 3, 1], staged: [] });
  });

  it('lays an extend out in three parts: the rest of the last page, whole pages, the tail', () => {
    const a = createReferenceAllocator({ sizeTokens: 256, kernelPageSize: 4, needSort: false, checks: true });
    expect(Array.from(a.allocExtend({ prefixLens: [2], seqLens: [11], lastLoc: [1] }) as Int32Array)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(Array.from(a.allocExtend({ prefixLens: [4], seqLens: [4], lastLoc: [3] }) as Int32Array)).toEqual([]);
  });

  it('decodes into lastLoc + 1, or the first slot of the next free page when seq % pageSize == 1', () => {
    const a = createReferenceAllocator({ sizeTokens: 32, kernelPageSize: 2, dcpSize: 2, needSort: false, checks: true });
    expect(a.pageSize).toBe(4);
    expect(Array.from(a.allocDecode({ seqLens: [1, 3, 5], lastLoc: [-1, 5, 7] }) as Int32Array)).toEqual([4, 6, 8]);
  });

  it('rolls a tentative allocation back, and a free back', () => {
    const a = createReferenceAllocator({ sizeTokens: 16, kernelPageSize: 1, needSort: false, checks: true });
    const snapshot = a.backupState();
    a.alloc(8);
    a.alloc(4);
    a.restoreState(snapshot);
    expect(a.availableSize()).toBe(16);
    const held = a.alloc(4) as Int32Array;
    const before = a.backupState();
    a.free(held);
    a.restoreState(before);
    expect(a.availableSize()).toBe(12);
  });

  it('releases a group at its end: plain frees once and sorted, then segment representatives as queued', () => {
    const a = createReferenceAllocator({ sizeTokens: 32, kernelPageSize: 4, needSort: false, checks: false });
    const row = a.alloc(16) as Int32Array; // pages 1 … 4
    a.freeGroupBegin();
    a.freeSegments([{ indices: row.subarray(8), startPos: 8 }]);
    a.free([row[5] as number, row[1] as number, row[4] as number]);
    expect(a.availableSize()).toBe(16);
    a.freeGroupEnd();
    // Pages 1, 2 (the plain free) go to the front first, then pages 3, 4 (the segment) before them.
    expect(list(a).free).toEqual([3, 4, 1, 2, 5, 6, 7, 8]);
  });

  it('refuses what checks on refuse, with nothing changed', () => {
    const a = createReferenceAllocator({ sizeTokens: 32, kernelPageSize: 4, needSort: false, checks: true });
    const row = a.alloc(8) as Int32Array;
    const before = a.backupState();
    expect(() => a.free([row[0] as number, 5 * 4])).toThrow(DoubleFreeError);
    expect(() => a.freeSegments([{ indices: row.subarray(2), startPos: 2 }])).toThrow(SegmentError);
    expect(() => a.allocExtend({ prefixLens: [8], seqLens: [9], lastLoc: [row[6] as number] })).toThrow(LastLocError);
    expect(() => a.freeGroupEnd()).toThrow(FreeGroupError);
    expect(a.backupState()).toEqual(before);
  });

  it('is the plain reference as a provider', () => {
    expect(plainReferenceProvider.create({ sizeTokens: 8, checks: true })).toBeInstanceOf(ReferenceAllocator);
  });
});
