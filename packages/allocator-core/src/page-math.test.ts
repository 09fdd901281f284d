import { describe, expect, it } from 'vitest';
import { InvariantError } from './errors.js';
import { ceilToPage, divCeil, divExact, divFloor, firstSlotOfPage, floorToPage, pageOfSlot } from './page-math.js';

describe('allocator-core:page-math', () => {
  it('divFloor and divCeil round down and up, exact at multiples', () => {
    expect([divFloor(7, 4), divFloor(8, 4), divFloor(9, 4), divFloor(0, 4)]).toEqual([1, 2, 2, 0]);
    expect([divCeil(7, 4), divCeil(8, 4), divCeil(9, 4), divCeil(0, 4)]).toEqual([2, 2, 3, 0]);
  });

  it('divExact divides multiples and throws InvariantError naming the operands otherwise', () => {
    expect(divExact(512, 64)).toBe(8);
    expect(divExact(0, 4)).toBe(0);
    expect(() => divExact(576, 512)).toThrow(InvariantError);
    expect(() => divExact(576, 512)).toThrow('divExact(576, 512) has a remainder');
  });

  it('ceilToPage and floorToPage land on the page grid; N·ps stays put, N·ps ± 1 moves', () => {
    expect([ceilToPage(511, 512), ceilToPage(512, 512), ceilToPage(513, 512), ceilToPage(0, 512)]).toEqual([512, 512, 1024, 0]);
    expect([floorToPage(511, 512), floorToPage(512, 512), floorToPage(513, 512)]).toEqual([0, 512, 512]);
    // The DCP seam: 576 is on the kernel grid (64) but inside allocator page 512 … 1024.
    expect([floorToPage(576, 64), floorToPage(576, 512), ceilToPage(576, 512)]).toEqual([576, 512, 1024]);
  });

  it('pageOfSlot and firstSlotOfPage convert between slots and pages', () => {
    expect([pageOfSlot(0, 4), pageOfSlot(3, 4), pageOfSlot(4, 4), pageOfSlot(7, 4), pageOfSlot(8, 4)]).toEqual([0, 0, 1, 1, 2]);
    expect([firstSlotOfPage(0, 4), firstSlotOfPage(1, 4), firstSlotOfPage(3, 512)]).toEqual([0, 4, 1536]);
    for (let slot = 0; slot < 64; slot++) {
      const page = pageOfSlot(slot, 8);
      expect(slot - firstSlotOfPage(page, 8)).toBe(slot % 8);
    }
  });
});
