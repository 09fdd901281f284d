import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ArgumentError } from './errors.js';
import { countDecodePages, planDecode, planDecodeInto } from './plan-decode.js';
import { expectThrown } from './test-support/expect-rejected.js';
import { range, rowOnPages, rowStructureBreak, shuffled } from './test-support/rows.js';

function slotsOf(plan: ReturnType<typeof planDecode>): number[] {
  expect(plan).not.toBeNull();
  return Array.from(plan?.slots ?? []);
}

describe('allocator-core:plan-decode,examples', () => {
  // alloc_decode examples of the engine's test_allocator_gpu.py, page size 4.
  it('seq=[4, 8, 12, 16], last=[3, 7, 11, 15] needs no new page: each slot follows its lastLoc', () => {
    const plan = planDecode({ seqLens: [4, 8, 12, 16], lastLoc: [3, 7, 11, 15] }, 4, []);
    expect(slotsOf(plan)).toEqual([4, 8, 12, 16]);
    expect(plan?.pageCount).toBe(0);
  });

  it('seq 5 after last 3 crosses a page and takes the first free page', () => {
    const plan = planDecode({ seqLens: [5], lastLoc: [3] }, 4, [6, 2]);
    expect(slotsOf(plan)).toEqual([24]);
    expect(plan?.pageCount).toBe(1);
  });

  it('seq 4 after last 2 consumes nothing', () => {
    const plan = planDecode({ seqLens: [4], lastLoc: [2] }, 4, []);
    expect(slotsOf(plan)).toEqual([3]);
    expect(plan?.pageCount).toBe(0);
  });

  it('crossing requests take free pages in batch order; the others continue after lastLoc', () => {
    const plan = planDecode({ seqLens: [5, 6, 9, 1], lastLoc: [7, 8, 15, -1] }, 4, [3, 9, 4]);
    expect(slotsOf(plan)).toEqual([12, 9, 36, 16]);
    expect(plan?.pageCount).toBe(3);
  });

  it('returns null when crossing requests outnumber the free pages (5 crossing, 4 free)', () => {
    const batch = { seqLens: [5, 5, 5, 5, 5], lastLoc: [3, 3, 3, 3, 3] };
    expect(planDecode(batch, 4, [1, 2, 3, 4])).toBeNull();
    expect(planDecode(batch, 4, [1, 2, 3, 4, 5])).not.toBeNull();
  });

  it('planDecodeInto reads the free list from freeStart', () => {
    const out = new Int32Array(2);
    planDecodeInto({ seqLens: [5, 2], lastLoc: [3, 8] }, 4, [1, 7, 2], 1, out);
    expect(Array.from(out)).toEqual([28, 9]);
  });
});

describe('allocator-core:plan-decode,count', () => {
  it.each([2, 4, 8, 64, 128])('equals the modulo formula #(seq %% ps == 1) for seq in [0, 300) at ps %i', (pageSize) => {
    for (let seq = 0; seq < 300; seq++) {
      expect(countDecodePages([seq], pageSize), `seq ${seq}`).toBe(seq % pageSize === 1 ? 1 : 0);
    }
  });

  it('counts 3 new pages for the batch [1, 2, 65, 129, 130] at ps 64', () => {
    expect(countDecodePages([1, 2, 65, 129, 130], 64)).toBe(3);
  });

  it('counts one page per request at page size 1 (the token allocator takes a slot each; the engine\'s CPU helper says 0)', () => {
    expect(countDecodePages([1], 1)).toBe(1);
    expect(countDecodePages([1, 2, 3, 4, 5, 16, 17], 1)).toBe(7);
  });
});

describe('allocator-core:plan-decode,validation', () => {
  it('accepts the control batch', () => {
    expect(planDecode({ seqLens: [1, 2], lastLoc: [-1, 4] }, 4, [3])).not.toBeNull();
  });

  it('refuses arrays of different lengths', () => {
    expectThrown(() => planDecode({ seqLens: [1, 2], lastLoc: [-1] }, 4, [3]), ArgumentError, ['seqLens 2', 'lastLoc 1']);
  });

  it('refuses seq 0 and accepts seq 1', () => {
    expectThrown(() => planDecode({ seqLens: [1, 0], lastLoc: [-1, -1] }, 4, [3, 4]), ArgumentError, ['request 1', 'seqLens 0']);
    expect(slotsOf(planDecode({ seqLens: [1], lastLoc: [-1] }, 4, [3]))).toEqual([12]);
  });
});

const kBatch = fc.record({
  pageSize: fc.constantFrom(1, 2, 3, 4, 8, 16),
  heldLens: fc.array(fc.nat(40), { maxLength: 9 }),
  extraPages: fc.nat(3),
  seed: fc.nat(),
});

describe('allocator-core:plan-decode,properties', () => {
  test.prop([kBatch])('one unique slot per request, rows keep page structure, crossing requests take the first free pages', (drawn) => {
    const { pageSize: ps, heldLens } = drawn;
    const prefixPageCounts = heldLens.map((held) => Math.ceil(held / ps));
    const crossing = heldLens.map((held) => Math.ceil((held + 1) / ps) > Math.ceil(held / ps));
    const newPageCount = crossing.filter(Boolean).length;
    const prefixPageTotal = prefixPageCounts.reduce((a, b) => a + b, 0);
    const ids = shuffled(range(1, prefixPageTotal + newPageCount + drawn.extraPages), drawn.seed);
    let next = 0;
    const rows = heldLens.map((held, i) => {
      const pages = ids.slice(next, next + (prefixPageCounts[i] as number));
      next += pages.length;
      return rowOnPages(pages, held, ps);
    });
    const freePages = ids.slice(next);
    const batch = { seqLens: heldLens.map((held) => held + 1), lastLoc: rows.map((row) => row[row.length - 1] ?? -1) };

    const plan = planDecode(batch, ps, freePages);
    expect(plan).not.toBeNull();
    const slots = Array.from(plan?.slots ?? []);
    expect(slots).toHaveLength(heldLens.length);
    expect(plan?.pageCount).toBe(newPageCount);
    expect(countDecodePages(batch.seqLens, ps)).toBe(newPageCount);

    const everySlot = new Set<number>();
    let cursor = 0;
    rows.forEach((prefix, i) => {
      const slot = slots[i] as number;
      expect(rowStructureBreak([...prefix, slot], ps), `request ${i}`).toBeNull();
      if (crossing[i]) expect(slot).toBe((freePages[cursor++] as number) * ps);
      for (const s of [...prefix, slot]) {
        expect(everySlot.has(s), `slot ${s} in two rows`).toBe(false);
        everySlot.add(s);
      }
    });
    if (newPageCount > 0) expect(planDecode(batch, ps, freePages.slice(0, newPageCount - 1))).toBeNull();
  });
});

describe('allocator-core:plan-decode,page-sizes', () => {
  // Power-of-two pages take a mask path, the others the ceil rule; both must give the ceil rule's answer.
  const kAnyPageSize = fc.oneof(fc.integer({ min: 0, max: 10 }).map((k) => 2 ** k), fc.integer({ min: 1, max: 700 }));
  test.prop([kAnyPageSize, fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 60 })])(
    'count and layout follow ceil(seq / ps) > ceil((seq − 1) / ps) at every page size',
    (pageSize, seqLens) => {
      const starts = seqLens.map((seq) => Math.ceil(seq / pageSize) > Math.ceil((seq - 1) / pageSize));
      expect(countDecodePages(seqLens, pageSize)).toBe(starts.filter(Boolean).length);
      const lastLoc = seqLens.map((_, i) => 1000 * i + 7);
      const freePages = seqLens.map((_, i) => 10 + i);
      const out = new Int32Array(seqLens.length);
      planDecodeInto({ seqLens, lastLoc }, pageSize, freePages, 0, out);
      let cursor = 0;
      expect(Array.from(out)).toEqual(seqLens.map((_, i) => (starts[i] ? (freePages[cursor++] as number) * pageSize : (lastLoc[i] as number) + 1)));
    },
  );
});
