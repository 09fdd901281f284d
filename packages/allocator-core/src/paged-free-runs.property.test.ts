import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { PagedAllocator } from './paged-allocator.js';

/**
 * A plain free walks its slots run by run (`collectPageRuns`: four slots at a time while they stay
 * in the page before them), in both modes. Rows here are runs of random length in random held
 * pages, pages repeating near and far, so a page change can fall on any slot of a four-slot step.
 */
const kPages = 12;

const runs = fc.array(fc.record({ page: fc.integer({ min: 0, max: kPages - 1 }), offset: fc.nat(), length: fc.integer({ min: 1, max: 11 }) }), { minLength: 1, maxLength: 24 });

describe('allocator-core:paged,free-runs', () => {
  test.prop([fc.constantFrom(2, 4, 64), fc.boolean(), runs])('a plain free gives back every page with a slot in it, once, in ascending order at the front', (pageSize, checks, drawn) => {
    const allocator = new PagedAllocator({ sizeTokens: kPages * pageSize, kernelPageSize: pageSize, dcpSize: 1, needSort: false, checks });
    const held = allocator.alloc(kPages * pageSize) as Int32Array;
    const slots: number[] = [];
    for (const { page, offset, length } of drawn) {
      const first = held[page * pageSize] as number;
      for (let i = 0; i < length; i++) slots.push(first + ((offset + i) % pageSize));
    }
    allocator.free(Int32Array.from(slots));
    const freed = [...new Set(slots.map((slot) => Math.floor(slot / pageSize)))].sort((a, b) => a - b);
    expect(Array.from(allocator.inspect().free)).toEqual(freed);
    if (checks) allocator.verifyInvariants();
  });
});
