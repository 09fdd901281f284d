import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ArgumentError } from './errors.js';
import { countExtendPages, countExtendTokens, planExtend, planExtendInto } from './plan-extend.js';
import { expectThrown } from './test-support/expect-rejected.js';
import { pagesOfSlots, range, rowOnPages, rowStructureBreak, shuffled } from './test-support/rows.js';

function slotsOf(plan: ReturnType<typeof planExtend>): number[] {
  expect(plan).not.toBeNull();
  return Array.from(plan?.slots ?? []);
}

// New pages of one request counted independently of the ceil formula: one per page-start
// position in [pre, seq).
function pageStartsIn(pre: number, seq: number, pageSize: number): number {
  let starts = 0;
  for (let pos = pre; pos < seq; pos++) if (pos % pageSize === 0) starts++;
  return starts;
}

describe('allocator-core:plan-extend,examples', () => {
  // Extend examples of the engine's tests (alloc_extend_naive in test_allocator_cpu.py, the
  // unaligned-branch cases of test_allocator_gpu.py), page size 4.
  it('pre=2, seq=4, last=1 → [2, 3], no new page', () => {
    const plan = planExtend({ prefixLens: [2], seqLens: [4], lastLoc: [1] }, 4, []);
    expect(slotsOf(plan)).toEqual([2, 3]);
    expect(plan?.pageCount).toBe(0);
  });

  it('pre=0, seq=8, free=[5, 6] → 20 … 27', () => {
    const plan = planExtend({ prefixLens: [0], seqLens: [8], lastLoc: [-1] }, 4, [5, 6]);
    expect(slotsOf(plan)).toEqual(range(20, 27));
    expect(plan?.pageCount).toBe(2);
  });

  it('pre=4, seq=7, last=3, free=[3] → [12, 13, 14]', () => {
    const plan = planExtend({ prefixLens: [4], seqLens: [7], lastLoc: [3] }, 4, [3]);
    expect(slotsOf(plan)).toEqual([12, 13, 14]);
    expect(plan?.pageCount).toBe(1);
  });

  it('pre=2, seq=11, last=1, free=[3, 4] → [2, 3] + 12 … 15 + [16, 17, 18]', () => {
    const plan = planExtend({ prefixLens: [2], seqLens: [11], lastLoc: [1] }, 4, [3, 4]);
    expect(slotsOf(plan)).toEqual([2, 3, 12, 13, 14, 15, 16, 17, 18]);
    expect(plan?.pageCount).toBe(2);
  });

  it('pre=4, seq=4 → empty', () => {
    const plan = planExtend({ prefixLens: [4], seqLens: [4], lastLoc: [3] }, 4, [9]);
    expect(slotsOf(plan)).toEqual([]);
    expect(plan?.pageCount).toBe(0);
  });

  it('size 256 fresh (free pages 1, 2, …): pre=2, seq=11, last=1 → [2, 3, 4 … 10]', () => {
    expect(slotsOf(planExtend({ prefixLens: [2], seqLens: [11], lastLoc: [1] }, 4, range(1, 63)))).toEqual([2, 3, ...range(4, 10)]);
  });

  it('requests take free pages in batch order: pre=[1, 3], seq=[6, 7], last=[4, 10], free=[3, 4] → 9 unique slots', () => {
    const plan = planExtend({ prefixLens: [1, 3], seqLens: [6, 7], lastLoc: [4, 10] }, 4, [3, 4]);
    expect(slotsOf(plan)).toEqual([5, 6, 7, 12, 13, 11, 16, 17, 18]);
    expect(plan?.pageCount).toBe(2);
  });

  it('puts the tail on the last page of the request\'s range: pre=0, seq=9, free=[7, 2, 5] → 28…31, 8…11, 20', () => {
    expect(slotsOf(planExtend({ prefixLens: [0], seqLens: [9], lastLoc: [-1] }, 4, [7, 2, 5, 6]))).toEqual([...range(28, 31), ...range(8, 11), 20]);
  });

  it('returns null when the free list is one page short', () => {
    expect(planExtend({ prefixLens: [0], seqLens: [8], lastLoc: [-1] }, 4, [5])).toBeNull();
    expect(planExtend({ prefixLens: [2, 0], seqLens: [11, 1], lastLoc: [1, -1] }, 4, [3, 4])).toBeNull();
    expect(planExtend({ prefixLens: [2, 0], seqLens: [11, 1], lastLoc: [1, -1] }, 4, [3, 4, 5])).not.toBeNull();
  });

  it('planExtendInto reads the free list from freeStart and writes only the batch\'s slots', () => {
    const out = new Int32Array(8);
    planExtendInto({ prefixLens: [0], seqLens: [8], lastLoc: [-1] }, 4, [1, 2, 5, 6], 2, out);
    expect(Array.from(out)).toEqual(range(20, 27));
  });

  it('at page size 1 takes one free slot per token, in batch order', () => {
    expect(slotsOf(planExtend({ prefixLens: [3, 0], seqLens: [5, 2], lastLoc: [9, -1] }, 1, [4, 8, 6, 7]))).toEqual([4, 8, 6, 7]);
  });
});

describe('allocator-core:plan-extend,count', () => {
  // The (prefix, extend) pairs of the engine's page-sizing test (`get_num_new_pages` against
  // `get_num_new_pages_for_extend`).
  const kPairs: readonly (readonly [number, number])[] = [
    [0, 1], [0, 63], [0, 64], [0, 65], [1, 1], [63, 1], [64, 1], [65, 1], [500, 512], [512, 512], [511, 1], [128, 0],
  ];
  const kPageCountsAt64 = [1, 1, 1, 2, 0, 0, 1, 0, 8, 8, 0, 0];

  it.each([1, 2, 4, 8, 64])('counts Σ ceil(seq/ps) − ceil(pre/ps) for every listed (prefix, extend) pair at ps %i', (pageSize) => {
    for (const [pre, extend] of kPairs) {
      expect(countExtendPages([pre], [pre + extend], pageSize), `(${pre}, ${extend})`).toBe(pageStartsIn(pre, pre + extend, pageSize));
    }
  });

  it('gives the listed page counts at ps 64, and their sum for the whole batch', () => {
    const pres = kPairs.map(([pre]) => pre);
    const seqs = kPairs.map(([pre, extend]) => pre + extend);
    expect(kPairs.map(([pre, extend]) => countExtendPages([pre], [pre + extend], 64))).toEqual(kPageCountsAt64);
    expect(countExtendPages(pres, seqs, 64)).toBe(kPageCountsAt64.reduce((a, b) => a + b, 0));
  });

  it('two 512-token extends of 512-token prefixes at ps 64 take 16 × 64 tokens', () => {
    expect(countExtendPages([512, 512], [1024, 1024], 64) * 64).toBe(16 * 64);
  });

  it('countExtendTokens is Σ(seq − pre)', () => {
    expect(countExtendTokens([0, 2, 4], [8, 11, 4])).toBe(17);
    expect(countExtendTokens([], [])).toBe(0);
  });
});

describe('allocator-core:plan-extend,validation', () => {
  const control = { prefixLens: [2, 0], seqLens: [4, 4], lastLoc: [1, -1] };

  it('accepts the control batch', () => {
    expect(planExtend(control, 4, [5])).not.toBeNull();
  });

  it('refuses arrays of different lengths (seqLens or lastLoc one short)', () => {
    expectThrown(() => planExtend({ ...control, seqLens: [4] }, 4, [5]), ArgumentError, ['prefixLens 2', 'seqLens 1']);
    expectThrown(() => planExtend({ ...control, lastLoc: [1] }, 4, [5]), ArgumentError, ['lastLoc 1']);
  });

  it('refuses seq < prefix (seq = prefix − 1) and accepts seq = prefix', () => {
    expectThrown(() => planExtend({ ...control, seqLens: [1, 4] }, 4, [5]), ArgumentError, ['request 0', 'seqLens 1 < prefixLens 2']);
    expect(slotsOf(planExtend({ ...control, seqLens: [2, 0] }, 4, []))).toEqual([]);
  });
});

// A batch of requests whose prefixes sit on distinct pages, and the free pages after them.
const kBatch = fc.record({
  pageSize: fc.constantFrom(1, 2, 3, 4, 8, 16),
  requests: fc.array(fc.record({ pre: fc.nat(40), extend: fc.nat(40) }), { maxLength: 9 }),
  extraPages: fc.nat(3),
  seed: fc.nat(),
});

describe('allocator-core:plan-extend,properties', () => {
  test.prop([kBatch])('output is Σ(seq − pre) unique slots, rows keep page structure, the first pageCount free pages are used', (drawn) => {
    const { pageSize: ps, requests } = drawn;
    const prefixPageCounts = requests.map(({ pre }) => Math.ceil(pre / ps));
    const newPageCount = requests.reduce((sum, { pre, extend }) => sum + pageStartsIn(pre, pre + extend, ps), 0);
    const prefixPageTotal = prefixPageCounts.reduce((a, b) => a + b, 0);
    const ids = shuffled(range(1, prefixPageTotal + newPageCount + drawn.extraPages), drawn.seed);
    let next = 0;
    const prefixRows = requests.map(({ pre }, i) => {
      const pages = ids.slice(next, next + (prefixPageCounts[i] as number));
      next += pages.length;
      return rowOnPages(pages, pre, ps);
    });
    const freePages = ids.slice(next);
    const batch = {
      prefixLens: requests.map(({ pre }) => pre),
      seqLens: requests.map(({ pre, extend }) => pre + extend),
      lastLoc: prefixRows.map((row) => row[row.length - 1] ?? -1),
    };

    const plan = planExtend(batch, ps, freePages);
    expect(plan).not.toBeNull();
    const slots = Array.from(plan?.slots ?? []);
    expect(slots).toHaveLength(requests.reduce((sum, { extend }) => sum + extend, 0));
    expect(plan?.pageCount).toBe(newPageCount);
    expect(new Set(slots).size).toBe(slots.length);

    let outPos = 0;
    const everySlot = new Set<number>();
    const newPages: number[] = [];
    requests.forEach(({ pre, extend }, i) => {
      const out = slots.slice(outPos, outPos + extend);
      outPos += extend;
      const row = [...(prefixRows[i] as number[]), ...out];
      expect(rowStructureBreak(row, ps), `request ${i}`).toBeNull();
      for (const slot of row) {
        expect(everySlot.has(slot), `slot ${slot} in two rows`).toBe(false);
        everySlot.add(slot);
      }
      const prefixPages = pagesOfSlots(prefixRows[i] as number[], ps);
      newPages.push(...pagesOfSlots(out, ps).filter((page) => !prefixPages.includes(page)));
      expect(pre + out.length).toBe(pre + extend);
    });
    // New pages are exactly the first pageCount free pages, in batch order.
    expect(newPages).toEqual(freePages.slice(0, newPageCount));
    if (newPageCount > 0) expect(planExtend(batch, ps, freePages.slice(0, newPageCount - 1))).toBeNull();
  });
});
