import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { LastLocError } from './errors.js';
import { createAllocator } from './create-allocator.js';
import { extendLastLocMiss, planDecodeChecked } from './internal/checked-plans.js';
import { PagedAllocator } from './paged-allocator.js';
import { planDecode, planDecodeInto } from './plan-decode.js';
import { expectRejected } from './test-support/expect-rejected.js';

/** The page part of the rule: lastLoc + 1 ≡ held (mod page). */
function fitsPage(held: number, lastLoc: number, pageSize: number): boolean {
  return (((lastLoc + 1 - held) % pageSize) + pageSize) % pageSize === 0;
}

/** The contract's lastLoc rule, written out plainly: −1 for an empty row, else the page part. */
function fits(held: number, lastLoc: number, pageSize: number): boolean {
  return held === 0 ? lastLoc === -1 : fitsPage(held, lastLoc, pageSize);
}

const kPageSize = fc.integer({ min: 0, max: 9 }).map((k) => 2 ** k);
/** lastLoc near the rule's edges (−1, page ends, off by one) as well as anywhere in int32. */
const kLastLoc = fc.oneof(fc.constantFrom(-2, -1, 0, 1), fc.integer({ min: -3, max: 2000 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
/** Lengths with the empty row (0 held tokens) drawn often: it has a rule of its own. */
const kHeld = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 }));
const kFreePages = Int32Array.from({ length: 4096 }, (_, i) => i + 1);
/** Decode requests: seq ≥ 1, a drawn lastLoc, and whether to replace it with one that fits. */
const kDecodeRequests = fc.array(fc.tuple(kHeld.map((held) => held + 1), kLastLoc, fc.boolean()), { minLength: 1, maxLength: 40, size: 'max' });

/** The decode batch of drawn requests (half take a fitting lastLoc, so that whole batches pass too), and whether every one fits. */
function decodeBatch(pageSize: number, drawn: readonly (readonly [number, number, boolean])[]): { batch: { seqLens: Int32Array; lastLoc: Int32Array }; fitsAll: boolean } {
  const seqLens = Int32Array.from(drawn, ([seq]) => seq);
  const lastLoc = Int32Array.from(drawn, ([seq, last, fit]) => (fit ? (seq === 1 ? -1 : pageSize * 3 + ((seq - 2) % pageSize)) : last));
  const fitsAll = drawn.every((_, i) => fits((seqLens[i] as number) - 1, lastLoc[i] as number, pageSize));
  return { batch: { seqLens, lastLoc }, fitsAll };
}

/**
 * The branch-free check against the rule, written out plainly: a batch passes exactly when every
 * request fits, and then the layout is the unchecked planner's.
 */
describe('allocator-core:lastloc,fused-check', () => {
  // Decode runs through allocDecode (the planner, and the own pass where it cannot ride one),
  // against the unchecked planner's layout.
  test.prop([kPageSize, kDecodeRequests], { numRuns: 300 })(
    'decode: allocDecode refuses exactly when some lastLoc does not fit seq − 1, else lays out as the planner',
    (pageSize, drawn) => {
      const { batch, fitsAll } = decodeBatch(pageSize, drawn);
      const allocator = createAllocator({ sizeTokens: 64 * pageSize, kernelPageSize: pageSize, checks: true });
      if (!fitsAll) {
        expectRejected(allocator, () => allocator.allocDecode(batch), LastLocError, ['lastLoc']);
        return;
      }
      const plain = planDecode(batch, pageSize, allocator.inspect().free);
      expect(Array.from(allocator.allocDecode(batch) ?? [])).toEqual(Array.from(plain?.slots ?? []));
    },
  );

  // The paged allocator's checked planner holds the page rule; the empty row's stronger rule
  // (lastLoc −1) is the validation pass's, and the allocDecode property above covers both.
  test.prop([kPageSize, kDecodeRequests], { numRuns: 300 })(
    'decode: the checked planner misses exactly when some lastLoc + 1 is off seq − 1 modulo the page, else lays out as the unchecked one',
    (pageSize, drawn) => {
      const { batch } = decodeBatch(pageSize, drawn);
      const onPage = drawn.every((_, i) => fitsPage((batch.seqLens[i] as number) - 1, batch.lastLoc[i] as number, pageSize));
      const plain = new Int32Array(drawn.length);
      planDecodeInto(batch, pageSize, kFreePages, 0, plain);
      const out = new Int32Array(drawn.length);
      expect(planDecodeChecked(batch, pageSize, kFreePages, 0, out) === 0).toBe(onPage);
      if (onPage) expect(Array.from(out)).toEqual(Array.from(plain));
    },
  );

  test.prop([kPageSize, fc.array(fc.tuple(kHeld, kLastLoc, fc.boolean()), { minLength: 1, maxLength: 40, size: 'max' })], {
    numRuns: 500,
  })('extend: the OR of extendLastLocMiss is 0 exactly when every lastLoc fits its prefix', (pageSize, drawn) => {
    const prefixLens = drawn.map(([pre]) => pre);
    const lastLoc = drawn.map(([pre, last, fit]) => (fit ? (pre === 0 ? -1 : pageSize * 3 + ((pre - 1) % pageSize)) : last));
    let miss = 0;
    for (let i = 0; i < drawn.length; i++) miss |= extendLastLocMiss(prefixLens[i] as number, lastLoc[i] as number, pageSize - 1);
    const expected = drawn.every((_, i) => fits(prefixLens[i] as number, lastLoc[i] as number, pageSize));
    expect(miss === 0).toBe(expected);
  });

  const kAnyPrefix = fc.oneof(kHeld, fc.integer({ min: 2 ** 31 - 4, max: 2 ** 32 + 4 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
  // Past 2^31 the empty-prefix mask may take a prefix for empty: a miss there sends the batch to the
  // exact pass; a pass must still mean the lastLoc fits.
  test.prop([kPageSize, kAnyPrefix, kLastLoc], { numRuns: 500 })(
    'extend: at any prefix length, extendLastLocMiss passes only a lastLoc that fits, and allocExtend answers by the rule',
    (pageSize, pre, last) => {
      if (extendLastLocMiss(pre, last, pageSize - 1) === 0) expect(fits(pre, last, pageSize)).toBe(true);
      const allocator = new PagedAllocator({ sizeTokens: 16 * pageSize, kernelPageSize: pageSize, checks: true });
      const batch = { prefixLens: [pre], seqLens: [pre], lastLoc: [last] };
      if (fits(pre, last, pageSize)) expect(allocator.allocExtend(batch)).toHaveLength(0);
      else expectRejected(allocator, () => allocator.allocExtend(batch), LastLocError, ['lastLoc']);
    },
  );
});

/** The paths where the decode check cannot ride the planner (a null answer, a merge of staged pages, a page that is not a power of two); extend checks in validateExtend on every path. */
describe('allocator-core:lastloc,own-pass', () => {
  it('a short pool still refuses a bad lastLoc rather than answering null', () => {
    const allocator = new PagedAllocator({ sizeTokens: 16, kernelPageSize: 4, checks: true });
    const row = allocator.alloc(8) as Int32Array; // pages 1, 2
    expect(allocator.allocExtend({ prefixLens: [8], seqLens: [40], lastLoc: [row[7] as number] })).toBeNull();
    expectRejected(allocator, () => allocator.allocExtend({ prefixLens: [8], seqLens: [40], lastLoc: [row[6] as number] }), LastLocError, ['lastLoc 10', 'prefix 8']);
    expect(allocator.allocDecode({ seqLens: [9, 9, 9], lastLoc: [11, 11, 11] })).toBeNull();
    expectRejected(allocator, () => allocator.allocDecode({ seqLens: [9, 9, 9], lastLoc: [11, 11, 10] }), LastLocError, ['request 2', 'lastLoc 10']);
  });

  it('under needSort, a bad lastLoc is refused before staged pages are merged (the free list order is kept)', () => {
    const allocator = new PagedAllocator({ sizeTokens: 16, kernelPageSize: 4, needSort: true, checks: true });
    const row = allocator.alloc(16) as Int32Array; // every page
    allocator.free(row.subarray(8)); // pages 3, 4 staged
    expectRejected(allocator, () => allocator.allocDecode({ seqLens: [9], lastLoc: [6] }), LastLocError, ['lastLoc 6']);
    expectRejected(allocator, () => allocator.allocExtend({ prefixLens: [8], seqLens: [9], lastLoc: [6] }), LastLocError, ['lastLoc 6']);
    expect(Array.from(allocator.allocDecode({ seqLens: [9], lastLoc: [7] }) ?? [])).toEqual([12]);
  });

  it('page 3 (not a power of two) checks in its own pass: 5 fits prefix 3 after page 1, 4 does not', () => {
    const allocator = new PagedAllocator({ sizeTokens: 30, kernelPageSize: 3, checks: true });
    allocator.alloc(3); // page 1: slots 3, 4, 5
    expectRejected(allocator, () => allocator.allocExtend({ prefixLens: [3], seqLens: [4], lastLoc: [4] }), LastLocError, ['lastLoc 4', 'prefix 3']);
    expectRejected(allocator, () => allocator.allocDecode({ seqLens: [3], lastLoc: [5] }), LastLocError, ['lastLoc 5', 'seqLens - 1 2']);
    expect(Array.from(allocator.allocDecode({ seqLens: [3], lastLoc: [4] }) ?? [])).toEqual([5]);
    expect(allocator.allocExtend({ prefixLens: [3], seqLens: [4], lastLoc: [5] })).toHaveLength(1);
  });
});
