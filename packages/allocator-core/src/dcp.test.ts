import { describe, expect, it } from 'vitest';
import { filterLocalIndices, localToLogical, logicalToLocal, widenedPageSize } from './dcp.js';
import { ArgumentError } from './errors.js';
import { PagedAllocator } from './paged-allocator.js';
import { expectThrown } from './test-support/expect-rejected.js';
import { range } from './test-support/rows.js';

// Decode context parallelism (`allocator/dcp.py`): logical slot i lives on rank i % D at local
// offset i // D; with the allocator page widened to kernel page × D, a logical page is one whole
// physical page on every rank.
describe('allocator-core:dcp,filter-local-indices', () => {
  it('keeps the slots with idx % D == rank, divided by D, in input order', () => {
    expect(Array.from(filterLocalIndices(range(0, 15), 4, 1))).toEqual([0, 1, 2, 3]);
    expect(Array.from(filterLocalIndices([13, 1, 9, 5, 6, 14], 4, 1))).toEqual([3, 0, 2, 1]);
    expect(Array.from(filterLocalIndices([13, 1, 9, 5, 6, 14], 4, 2))).toEqual([1, 3]);
    expect(Array.from(filterLocalIndices([13, 1, 9, 5], 4, 0))).toEqual([]);
  });

  it('at D = 1 is the identity', () => {
    expect(Array.from(filterLocalIndices([7, 3, 9], 1, 0))).toEqual([7, 3, 9]);
  });

  it('the ranks partition the slots: every slot appears on exactly one rank', () => {
    const slots = range(0, 127);
    const found = range(0, 7).flatMap((rank) => Array.from(filterLocalIndices(slots, 8, rank), (local) => localToLogical(local, rank, 8)));
    expect(found.sort((a, b) => a - b)).toEqual(slots);
  });

  it('with the widened page (kernel 64 × D 8 = 512), a whole logical page is exactly one whole physical page on every rank', () => {
    const dcpSize = 8;
    const kernelPageSize = 64;
    expect(widenedPageSize(kernelPageSize, dcpSize)).toBe(512);
    const allocator = new PagedAllocator({ sizeTokens: 4 * 512, kernelPageSize, dcpSize, needSort: false, checks: true });
    expect(allocator.pageSize).toBe(512);
    for (let page = 1; page <= allocator.numPages; page++) {
      const slots = allocator.alloc(512) ?? new Int32Array(0);
      expect(Math.floor((slots[0] ?? -1) / 512)).toBe(page);
      for (let rank = 0; rank < dcpSize; rank++) {
        expect(Array.from(filterLocalIndices(slots, dcpSize, rank))).toEqual(range(page * kernelPageSize, (page + 1) * kernelPageSize - 1));
      }
    }
  });

  it('without the widening (page 64 on the logical space), a logical page is only 8 offsets of a physical page per rank', () => {
    const local = filterLocalIndices(range(64, 127), 8, 3);
    expect(Array.from(local)).toEqual(range(8, 15));
    expect(local.length).toBeLessThan(64);
  });
});

describe('allocator-core:dcp,convert', () => {
  it('logicalToLocal and localToLogical are inverse', () => {
    expect(logicalToLocal(1037, 8)).toEqual({ rank: 5, local: 129 });
    for (let slot = 0; slot < 200; slot++) {
      const { rank, local } = logicalToLocal(slot, 8);
      expect(localToLogical(local, rank, 8)).toBe(slot);
    }
  });
});

describe('allocator-core:dcp,validation', () => {
  it('control: rank D − 1 passes', () => {
    expect(Array.from(filterLocalIndices([7, 15], 8, 7))).toEqual([0, 1]);
    expect(localToLogical(1, 7, 8)).toBe(15);
  });

  it.each([8, -1, 1.5, Number.NaN])('refuses rank %s for D = 8', (rank) => {
    expectThrown(() => filterLocalIndices([0, 1], 8, rank), ArgumentError, [`rank ${rank}`, '[0, 8)']);
    expectThrown(() => localToLogical(0, rank, 8), ArgumentError, [`rank ${rank}`]);
  });

  it.each([0, -2, 2.5])('refuses the DCP size %s', (dcpSize) => {
    expectThrown(() => filterLocalIndices([0, 1], dcpSize, 0), ArgumentError, [`dcpSize ${dcpSize}`]);
  });
});
