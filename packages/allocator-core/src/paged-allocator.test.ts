import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ArgumentError, DoubleFreeError, FreeGroupError, LastLocError } from './errors.js';
import { PagedAllocator } from './paged-allocator.js';
import { expectRejected } from './test-support/expect-rejected.js';
import { range, slotsOfPages } from './test-support/rows.js';

// The engine's test_allocator_cpu.py / test_allocator_gpu.py / test_allocator_page_aligned_free.py
// expectations for the paged allocator (`allocator/paged.py`). Page size 4 unless noted; the
// allocator page is kernelPageSize × dcpSize, so kernel page 4 (or kernel page 2 × DCP 2) gives it.
interface Geometry {
  readonly sizeTokens?: number;
  readonly needSort?: boolean;
  readonly checks?: boolean;
}

function paged({ sizeTokens = 64, needSort = false, checks = true }: Geometry = {}): PagedAllocator {
  return new PagedAllocator({ sizeTokens, kernelPageSize: 4, dcpSize: 1, needSort, checks });
}

function list(slots: Int32Array | null): number[] {
  expect(slots).not.toBeNull();
  return Array.from(slots ?? []);
}

describe('allocator-core:paged,alloc', () => {
  it('alloc(8) returns 8 unique slots whose first slot and slot[4] are page-aligned; 56 stay available', () => {
    const allocator = paged();
    const slots = list(allocator.alloc(8));
    expect(slots).toEqual(range(4, 11));
    expect(new Set(slots).size).toBe(8);
    expect((slots[0] ?? -1) % 4).toBe(0);
    expect((slots[4] ?? -1) % 4).toBe(0);
    expect(allocator.availableSize()).toBe(56);
  });

  it('widens the page by the DCP size: kernel page 2 × DCP 2 behaves as page 4', () => {
    const allocator = new PagedAllocator({ sizeTokens: 64, kernelPageSize: 2, dcpSize: 2, needSort: false, checks: true });
    expect(allocator.pageSize).toBe(4);
    expect(allocator.numPages).toBe(16);
    expect(list(allocator.alloc(8))).toEqual(range(4, 11));
  });

  it('size 16: alloc(20) and alloc(24) (5 and 6 pages of 4) return null and change nothing', () => {
    const allocator = paged({ sizeTokens: 16 });
    const before = allocator.backupState();
    expect(allocator.alloc(20)).toBeNull();
    expect(allocator.alloc(24)).toBeNull();
    expect(allocator.backupState()).toEqual(before);
  });

  it('size 16: alloc(18) is refused, not a page multiple (the engine would floor it to 16 and succeed)', () => {
    const allocator = paged({ sizeTokens: 16 });
    expectRejected(allocator, () => allocator.alloc(18), ArgumentError, [18, 'page size 4']);
  });

  it('size 16: takes exactly its 4 pages, then returns null', () => {
    const allocator = paged({ sizeTokens: 16 });
    expect(list(allocator.alloc(16))).toEqual(range(4, 19));
    expect(allocator.alloc(4)).toBeNull();
  });

  it('needSort size 16: alloc(32) returns null and changes nothing', () => {
    const allocator = paged({ sizeTokens: 16, needSort: true });
    const before = allocator.backupState();
    expect(allocator.alloc(32)).toBeNull();
    expect(allocator.backupState()).toEqual(before);
  });

  it('never returns a slot of page 0 for alloc(64)', () => {
    const allocator = paged();
    const slots = list(allocator.alloc(64));
    expect(slots).toHaveLength(64);
    expect(Math.min(...slots)).toBe(4);
    expect(Math.max(...slots)).toBe(67);
  });

  it('a free restores the available size', () => {
    const allocator = paged();
    allocator.free(allocator.alloc(8) ?? []);
    expect(allocator.availableSize()).toBe(64);
    expect(allocator.inspect().free).toHaveLength(16);
  });

  it('releases the whole page of any slot given, each page once per call', () => {
    const allocator = paged();
    allocator.alloc(8);
    allocator.free([5]);
    expect(allocator.availableSize()).toBe(60);
    expect(list(allocator.alloc(4))).toEqual([4, 5, 6, 7]);
    allocator.free([4, 5, 6, 7, 8, 11, 4]);
    expect(allocator.availableSize()).toBe(64);
  });

  // Pages 1 and 2 taking turns, no slot next to one of its page: both frees collect an entry per
  // run of slots and dedupe after, up to a limit (checks off: scratch's numPages + 1 = 5 entries;
  // checks on: the pages held, 2 here), past which they take a slot-by-slot path.
  it.each([
    [true, 3],
    [true, 10],
    [false, 3],
    [false, 5],
    [false, 6],
    [false, 10],
  ])('checks %s: %i entries repeating two pages far apart free each page once', (checks, entries) => {
    const allocator = paged({ sizeTokens: 16, checks });
    allocator.alloc(8); // pages 1, 2
    allocator.free(Int32Array.from({ length: entries }, (_, i) => (i % 2 === 0 ? 4 : 8) + ((i >> 1) % 4)));
    expect(allocator.availableSize()).toBe(16);
    expect(Array.from(allocator.inspect().free)).toEqual([1, 2, 3, 4]);
    allocator.verifyInvariants();
  });
});

describe('allocator-core:paged,reuse', () => {
  it('puts freed pages at the front of the free list (LIFO reuse), a plain free in ascending order', () => {
    const allocator = paged();
    const first = list(allocator.alloc(8)); // pages 1, 2
    const second = list(allocator.alloc(8)); // pages 3, 4
    allocator.free(first);
    expect(Array.from(allocator.inspect().free)).toEqual([1, 2, ...range(5, 16)]);
    allocator.free(second.reverse());
    expect(Array.from(allocator.inspect().free)).toEqual([3, 4, 1, 2, ...range(5, 16)]);
    expect(list(allocator.alloc(4))).toEqual([12, 13, 14, 15]);
  });

  it('page-aligned free test: size 16, alloc(8) takes pages 1, 2; a free makes the free list [1, 2, 3, 4]', () => {
    const allocator = paged({ sizeTokens: 16 });
    const slots = list(allocator.alloc(8));
    expect(slots).toEqual(slotsOfPages([1, 2], 4));
    allocator.free(slots);
    expect(Array.from(allocator.inspect().free)).toEqual([1, 2, 3, 4]);
    expect(Array.from(allocator.inspect().staged)).toEqual([]);
  });
});

describe('allocator-core:paged,need-sort', () => {
  it('page-aligned free test: size 16 with needSort, a free stages pages [1, 2] and leaves the free list [3, 4]', () => {
    const allocator = paged({ sizeTokens: 16, needSort: true });
    allocator.free(allocator.alloc(8) ?? []);
    expect(Array.from(allocator.inspect().free)).toEqual([3, 4]);
    expect(Array.from(allocator.inspect().staged)).toEqual([1, 2]);
    expect(allocator.availableSize()).toBe(16);
  });

  it('counts staged pages as available (free then available 32)', () => {
    const allocator = paged({ needSort: true });
    const first = list(allocator.alloc(32));
    allocator.alloc(32);
    expect(allocator.availableSize()).toBe(0);
    allocator.free(first);
    expect(allocator.availableSize()).toBe(32);
    expect(Array.from(allocator.inspect().staged)).toEqual(range(1, 8));
    expect(list(allocator.alloc(32))).toEqual(first);
  });

  it('merges staged pages, sorted, only when an allocation runs short', () => {
    const allocator = paged({ needSort: true });
    allocator.free(allocator.alloc(8) ?? []); // stages 1, 2
    expect(list(allocator.alloc(4))).toEqual(slotsOfPages([3], 4));
    expect(Array.from(allocator.inspect().staged)).toEqual([1, 2]);
    // 13 pages free, 14 wanted: the merge gives [1, 2, 4 … 16].
    expect(list(allocator.alloc(56))).toEqual(slotsOfPages([1, 2, ...range(4, 15)], 4));
    expect(Array.from(allocator.inspect().free)).toEqual([16]);
    expect(Array.from(allocator.inspect().staged)).toEqual([]);
  });
});

describe('allocator-core:paged,extend', () => {
  // The engine's examples put the prefix in page 0 (lastLoc 1 or 3). The in-line lastLoc check is
  // the contract's rule (lastLoc + 1 ≡ prefix mod page) and reads no page state, so they run as
  // written with checks off and on; a second version runs against a prefix allocated first.
  it('size 256, fresh: pre=2, seq=11, last=1 → [2, 3, 4 … 10] (checks off: the prefix is in page 0)', () => {
    const allocator = paged({ sizeTokens: 256, checks: false });
    expect(list(allocator.allocExtend({ prefixLens: [2], seqLens: [11], lastLoc: [1] }))).toEqual([2, 3, ...range(4, 10)]);
    expect(allocator.availableSize()).toBe(256 - 8);
  });

  it('size 256, fresh, checks on: the same call gives the same slots (lastLoc 1 fits prefix 2)', () => {
    const allocator = paged({ sizeTokens: 256 });
    expect(list(allocator.allocExtend({ prefixLens: [2], seqLens: [11], lastLoc: [1] }))).toEqual([2, 3, ...range(4, 10)]);
  });

  it('size 256, checks on, prefix on page 1: pre=2, seq=11, last=5 → [6, 7, 8 … 14]', () => {
    const allocator = paged({ sizeTokens: 256 });
    allocator.alloc(4);
    expect(list(allocator.allocExtend({ prefixLens: [2], seqLens: [11], lastLoc: [5] }))).toEqual([6, 7, ...range(8, 14)]);
  });

  it('pre=2, seq=4 stays inside the prefix page and consumes nothing', () => {
    const off = paged({ checks: false });
    expect(list(off.allocExtend({ prefixLens: [2], seqLens: [4], lastLoc: [1] }))).toEqual([2, 3]);
    expect(off.availableSize()).toBe(64);
    const on = paged();
    on.alloc(4);
    expect(list(on.allocExtend({ prefixLens: [2], seqLens: [4], lastLoc: [5] }))).toEqual([6, 7]);
    expect(on.availableSize()).toBe(60);
  });

  it('pre=0, seq=8 with free pages [5, 6] first → 20 … 27', () => {
    const allocator = paged();
    allocator.alloc(16); // pages 1 … 4
    expect(Array.from(allocator.inspect().free.subarray(0, 2))).toEqual([5, 6]);
    expect(list(allocator.allocExtend({ prefixLens: [0], seqLens: [8], lastLoc: [-1] }))).toEqual(range(20, 27));
  });

  it('pre=4, seq=7 with free page 3 first → [12, 13, 14]', () => {
    const off = paged({ checks: false });
    off.alloc(8);
    expect(list(off.allocExtend({ prefixLens: [4], seqLens: [7], lastLoc: [3] }))).toEqual([12, 13, 14]);
    const on = paged();
    on.alloc(8); // the prefix is page 1, its last slot 7
    expect(list(on.allocExtend({ prefixLens: [4], seqLens: [7], lastLoc: [7] }))).toEqual([12, 13, 14]);
  });

  it('pre=2, seq=11 with free pages [3, 4] first → [2, 3] + 12 … 15 + [16, 17, 18]', () => {
    const off = paged({ checks: false });
    off.alloc(8);
    expect(list(off.allocExtend({ prefixLens: [2], seqLens: [11], lastLoc: [1] }))).toEqual([2, 3, ...range(12, 18)]);
    const on = paged();
    on.alloc(8);
    expect(list(on.allocExtend({ prefixLens: [2], seqLens: [11], lastLoc: [5] }))).toEqual([6, 7, ...range(12, 18)]);
    expect(on.availableSize()).toBe(64 - 16);
  });

  it('pre=4, seq=4 returns nothing and consumes nothing', () => {
    const allocator = paged();
    allocator.alloc(4);
    const before = allocator.backupState();
    expect(list(allocator.allocExtend({ prefixLens: [4], seqLens: [4], lastLoc: [7] }))).toEqual([]);
    expect(allocator.backupState()).toEqual(before);
  });

  it('size 256: pre=[0, 4], seq=[8, 8] returns 12 slots (checks off literal, checks on with the prefix on page 1)', () => {
    const off = paged({ sizeTokens: 256, checks: false });
    expect(list(off.allocExtend({ prefixLens: [0, 4], seqLens: [8, 8], lastLoc: [-1, 3] }))).toEqual(range(4, 15));
    const on = paged({ sizeTokens: 256 });
    on.alloc(4);
    const slots = list(on.allocExtend({ prefixLens: [0, 4], seqLens: [8, 8], lastLoc: [-1, 7] }));
    expect(slots).toEqual(range(8, 19));
    expect(new Set(slots).size).toBe(12);
  });

  it('size 256: pre=0, seq=8 returns 8 unique slots and the available size drops by 8', () => {
    const allocator = paged({ sizeTokens: 256 });
    const slots = list(allocator.allocExtend({ prefixLens: [0], seqLens: [8], lastLoc: [-1] }));
    expect(new Set(slots).size).toBe(8);
    expect(allocator.availableSize()).toBe(248);
  });

  it('needSort: an extend works, and merges staged pages when the free list runs short', () => {
    const roomy = paged({ sizeTokens: 256, needSort: true });
    expect(list(roomy.allocExtend({ prefixLens: [0], seqLens: [8], lastLoc: [-1] }))).toEqual(range(4, 11));
    const tight = paged({ sizeTokens: 16, needSort: true });
    const all = list(tight.alloc(16));
    tight.free(all.slice(8)); // stages pages 3, 4
    tight.free(all.slice(0, 4)); // stages page 1
    expect(tight.inspect().free).toHaveLength(0);
    expect(list(tight.allocExtend({ prefixLens: [0], seqLens: [8], lastLoc: [-1] }))).toEqual(slotsOfPages([1, 3], 4));
    expect(Array.from(tight.inspect().free)).toEqual([4]);
  });

  it('size 16: an extend to 32 returns null and changes nothing', () => {
    const allocator = paged({ sizeTokens: 16 });
    const before = allocator.backupState();
    expect(allocator.allocExtend({ prefixLens: [0], seqLens: [32], lastLoc: [-1] })).toBeNull();
    expect(allocator.backupState()).toEqual(before);
  });

  it('after alloc(8), the unaligned batch pre=[1, 3], seq=[6, 7], last=[4, 10] returns 9 unique slots', () => {
    const allocator = paged();
    allocator.alloc(8); // request 0's prefix is on page 1, request 1's on page 2
    const slots = list(allocator.allocExtend({ prefixLens: [1, 3], seqLens: [6, 7], lastLoc: [4, 10] }));
    expect(slots).toEqual([5, 6, 7, 12, 13, 11, 16, 17, 18]);
    expect(new Set(slots).size).toBe(9);
    expect(allocator.availableSize()).toBe(64 - 16);
  });
});

describe('allocator-core:paged,decode', () => {
  it('seq=[4, 8, 12, 16], last=[3, 7, 11, 15] needs no new page (checks off: the engine test\'s lastLocs do not fit the lengths)', () => {
    const allocator = paged({ checks: false });
    expect(list(allocator.allocDecode({ seqLens: [4, 8, 12, 16], lastLoc: [3, 7, 11, 15] }))).toEqual([4, 8, 12, 16]);
    expect(allocator.availableSize()).toBe(64);
  });

  it('seq=[4, 8, 12, 16] with fitting lastLocs on held pages needs no new page (checks on)', () => {
    const allocator = paged();
    allocator.alloc(16); // one page per request: 1, 2, 3, 4
    expect(list(allocator.allocDecode({ seqLens: [4, 8, 12, 16], lastLoc: [6, 10, 14, 18] }))).toEqual([7, 11, 15, 19]);
    expect(allocator.availableSize()).toBe(48);
  });

  it('seq 5 after last 3 crosses a page and consumes one page', () => {
    const off = paged({ checks: false });
    expect(list(off.allocDecode({ seqLens: [5], lastLoc: [3] }))).toEqual([4]);
    expect(off.availableSize()).toBe(60);
    const on = paged();
    on.alloc(4);
    expect(list(on.allocDecode({ seqLens: [5], lastLoc: [7] }))).toEqual([8]);
    expect(on.availableSize()).toBe(56);
  });

  it('seq 4 after last 2 stays in the page and consumes nothing', () => {
    const off = paged({ checks: false });
    expect(list(off.allocDecode({ seqLens: [4], lastLoc: [2] }))).toEqual([3]);
    expect(off.availableSize()).toBe(64);
    const on = paged();
    on.alloc(4);
    expect(list(on.allocDecode({ seqLens: [4], lastLoc: [6] }))).toEqual([7]);
    expect(on.availableSize()).toBe(60);
  });

  it('size 16, needSort: 5 requests all crossing a page return null and change nothing', () => {
    const allocator = paged({ sizeTokens: 16, needSort: true });
    allocator.alloc(4);
    const before = allocator.backupState();
    expect(allocator.allocDecode({ seqLens: [5, 5, 5, 5, 5], lastLoc: [7, 7, 7, 7, 7] })).toBeNull();
    expect(allocator.backupState()).toEqual(before);
  });

  it('size 16: as many crossing requests as free pages succeed, in batch order', () => {
    const allocator = paged({ sizeTokens: 16 });
    allocator.alloc(4);
    expect(list(allocator.allocDecode({ seqLens: [5, 6, 5, 5], lastLoc: [7, 4, 7, 7] }))).toEqual([8, 5, 12, 16]);
    expect(allocator.availableSize()).toBe(0);
  });

  it('needSort: merges staged pages when the batch outgrows the free list', () => {
    const allocator = paged({ sizeTokens: 16, needSort: true });
    const all = list(allocator.alloc(16));
    allocator.free(all.slice(8)); // stages 3, 4
    allocator.free(all.slice(4, 8)); // stages 2
    expect(list(allocator.allocDecode({ seqLens: [5, 5], lastLoc: [7, 7] }))).toEqual([8, 12]);
    expect(Array.from(allocator.inspect().free)).toEqual([4]);
  });
});

describe('allocator-core:paged,clear', () => {
  it('makes every page free (ascending), drops staged pages and open groups, and resets page states', () => {
    const allocator = paged({ needSort: true });
    const held = list(allocator.alloc(16));
    allocator.free(held.slice(0, 4));
    allocator.freeGroupBegin();
    allocator.free(held.slice(4, 8));
    allocator.clear();
    expect(allocator.availableSize()).toBe(64);
    expect(Array.from(allocator.inspect().free)).toEqual(range(1, 16));
    expect(Array.from(allocator.inspect().staged)).toEqual([]);
    expect(() => allocator.freeGroupEnd()).toThrow(FreeGroupError);
    expect(() => allocator.free(held.slice(8))).toThrow(DoubleFreeError);
    expect(allocator.backupState()).toEqual(paged({ needSort: true }).backupState());
    allocator.verifyInvariants();
  });
});

// Random geometry, random traffic of valid calls: page 0 is never handed out and the available
// size stays a multiple of the page size and matches the pages held.
const kGeometry = fc.record({
  kernelPageSize: fc.integer({ min: 1, max: 8 }),
  dcpSize: fc.constantFrom(1, 2, 4),
  pageCount: fc.integer({ min: 1, max: 12 }),
  needSort: fc.boolean(),
  checks: fc.boolean(),
});
const kOps = fc.array(
  fc.record({ kind: fc.constantFrom('alloc', 'extend', 'decode', 'free'), n: fc.nat(5), pick: fc.nat() }),
  // size 'max': without it fast-check draws far fewer ops than maxLength allows.
  { maxLength: 30, size: 'max' },
);

describe('allocator-core:paged,properties', () => {
  test.prop([kGeometry, kOps])('never hands out page 0; availableSize stays a page multiple and exact', (geometry, ops) => {
    const ps = geometry.kernelPageSize * geometry.dcpSize;
    const allocator = new PagedAllocator({ ...geometry, sizeTokens: geometry.pageCount * ps });
    const held: Int32Array[] = [];
    let heldPages = 0;
    for (const op of ops) {
      let got: Int32Array | null = null;
      if (op.kind === 'free') {
        if (held.length === 0) continue;
        const [block] = held.splice(op.pick % held.length, 1);
        allocator.free(block ?? []);
        heldPages -= new Set(Array.from(block ?? [], (slot) => Math.floor(slot / ps))).size;
      } else if (op.kind === 'alloc') {
        got = allocator.alloc(op.n * ps);
      } else if (op.kind === 'extend') {
        got = allocator.allocExtend({ prefixLens: [0], seqLens: [op.n * ps + (op.pick % ps)], lastLoc: [-1] });
      } else {
        got = allocator.allocDecode({ seqLens: [1], lastLoc: [-1] });
      }
      if (got !== null && got.length > 0) {
        for (const slot of got) expect(slot).toBeGreaterThanOrEqual(ps);
        held.push(got);
        heldPages += new Set(Array.from(got, (slot) => Math.floor(slot / ps))).size;
      }
      expect(allocator.availableSize() % ps).toBe(0);
      expect(allocator.availableSize()).toBe((allocator.numPages - heldPages) * ps);
    }
    allocator.verifyInvariants();
  });
});
