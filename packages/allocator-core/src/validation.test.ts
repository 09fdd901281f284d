import { describe, expect, it } from 'vitest';
import type { BaseAllocator } from './base-allocator.js';
import { ArgumentError, DoubleFreeError, FreeGroupError, LastLocError, SegmentError, SlotRangeError } from './errors.js';
import { PagedAllocator } from './paged-allocator.js';
import { TokenAllocator } from './token-allocator.js';
import { expectRejected, expectRejectedInGroup } from './test-support/expect-rejected.js';
import { range, slotsOfPages } from './test-support/rows.js';
import type { FreeSegment } from './types.js';

// The bad-input rules of CONTRACT.md (A20–A25) for allocator calls, one rule at a
// time (STYLE rule 18): a passing control, the rule broken alone, both sides of each boundary.
// Every bad case asserts the error class, that the message names the value, and that
// backupState() is deep-equal before and after.
//
// The pool: 16 pages of `ps` slots. Pages 1, 2 (row A) and 5, 6 (row C) are held; pages 3, 4 were
// allocated and given back; pages 7 … 16 were never handed out. Free list: [3, 4, 7 … 16].
function used(checks: boolean, kernelPageSize = 4, dcpSize = 1): PagedAllocator {
  const ps = kernelPageSize * dcpSize;
  const allocator = new PagedAllocator({ sizeTokens: 16 * ps, kernelPageSize, dcpSize, needSort: false, checks });
  allocator.alloc(2 * ps);
  const given = allocator.alloc(2 * ps);
  allocator.alloc(2 * ps);
  allocator.free(given ?? []);
  return allocator;
}

const kRowA = slotsOfPages([1, 2], 4); // positions 0 … 7 → slots 4 … 11
const kRowC = slotsOfPages([5, 6], 4); // positions 0 … 7 → slots 20 … 27
const kPage1 = slotsOfPages([1], 4);
const kPage2 = slotsOfPages([2], 4);

function segment(indices: ArrayLike<number>, startPos: number): FreeSegment {
  return { indices, startPos };
}

describe('allocator-core:validation,always', () => {
  describe.each([true, false])('checks %s', (checks) => {
    describe('alloc', () => {
      it('control: alloc(8), alloc(4) and alloc(0) pass', () => {
        const allocator = used(checks);
        expect(allocator.alloc(8)).toHaveLength(8);
        expect(allocator.alloc(4)).toHaveLength(4);
        expect(allocator.alloc(0)).toHaveLength(0);
      });

      it.each([-4, -1])('refuses the negative size %i (0 passes)', (size) => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.alloc(size), ArgumentError, [`alloc size ${size}`]);
      });

      it.each([4.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses the non-integer size %s', (size) => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.alloc(size), ArgumentError, [`alloc size ${size}`]);
      });

      it.each([7, 9, 2])('refuses %i, not a multiple of page size 4 (8 passes)', (size) => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.alloc(size), ArgumentError, [`alloc size ${size}`, 'page size 4']);
      });

      it('page 8 (kernel 2 × DCP 4): 16 and 8 pass; 4 (2^(k−1)) and 2 (a kernel page) are refused', () => {
        const allocator = used(checks, 2, 4);
        for (const size of [4, 2]) expectRejected(allocator, () => allocator.alloc(size), ArgumentError, [`alloc size ${size}`, 'page size 8']);
        expect(allocator.alloc(8)).toHaveLength(8);
        expect(allocator.alloc(16)).toHaveLength(16);
      });
    });

    describe('allocExtend', () => {
      const control = { prefixLens: [2, 0], seqLens: [5, 3], lastLoc: [5, -1] };

      it('control: two requests, arrays of one length, seq ≥ prefix', () => {
        const allocator = used(checks);
        expect(allocator.allocExtend(control)).toHaveLength(6);
      });

      it('control: seq = prefix passes and returns nothing for that request', () => {
        const allocator = used(checks);
        expect(Array.from(allocator.allocExtend({ prefixLens: [2, 3], seqLens: [5, 3], lastLoc: [5, 22] }) ?? [])).toEqual([6, 7, 12]);
      });

      it.each([
        ['prefixLens', { ...control, prefixLens: [2] }, ['prefixLens 1', 'seqLens 2', 'lastLoc 2']],
        ['seqLens', { ...control, seqLens: [5] }, ['prefixLens 2', 'seqLens 1', 'lastLoc 2']],
        ['lastLoc', { ...control, lastLoc: [5] }, ['prefixLens 2', 'seqLens 2', 'lastLoc 1']],
        ['lastLoc (one too many)', { ...control, lastLoc: [5, -1, -1] }, ['prefixLens 2', 'seqLens 2', 'lastLoc 3']],
      ] as const)('refuses arrays of different lengths: %s', (_name, batch, named) => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.allocExtend(batch), ArgumentError, named);
      });

      it('refuses seq < prefix (seq = prefix − 1) in the second request, allocating nothing for the first', () => {
        const allocator = used(checks);
        const batch = { prefixLens: [2, 3], seqLens: [5, 2], lastLoc: [5, 22] };
        expectRejected(allocator, () => allocator.allocExtend(batch), ArgumentError, ['request 1', 'seqLens 2 < prefixLens 3']);
      });

      it.each([
        ['a negative prefix', { prefixLens: [-1], seqLens: [3], lastLoc: [-1] }, ['prefixLens -1']],
        ['a non-integer seq', { prefixLens: [0], seqLens: [2.5], lastLoc: [-1] }, ['seqLens 2.5']],
        ['a negative seq', { prefixLens: [0], seqLens: [-1], lastLoc: [-1] }, ['seqLens -1']],
        ['a non-integer lastLoc', { prefixLens: [2], seqLens: [3], lastLoc: [5.5] }, ['lastLoc 5.5']],
      ] as const)('refuses %s', (_name, batch, named) => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.allocExtend(batch), ArgumentError, named);
      });
    });

    describe('allocDecode', () => {
      it('control: seq [3, 1] with lastLoc [5, -1]', () => {
        const allocator = used(checks);
        expect(Array.from(allocator.allocDecode({ seqLens: [3, 1], lastLoc: [5, -1] }) ?? [])).toEqual([6, 12]);
      });

      it('refuses arrays of different lengths', () => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.allocDecode({ seqLens: [3, 1], lastLoc: [5] }), ArgumentError, ['seqLens 2', 'lastLoc 1']);
        expectRejected(allocator, () => allocator.allocDecode({ seqLens: [3], lastLoc: [5, -1] }), ArgumentError, ['seqLens 1', 'lastLoc 2']);
      });

      it.each([0, -1, 2.5])('refuses seq %s (seq 1 passes)', (seq) => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.allocDecode({ seqLens: [3, seq], lastLoc: [5, -1] }), ArgumentError, ['request 1', `seqLens ${seq}`]);
      });
    });

    describe('freeSegments', () => {
      it('control: one segment, and two segments meeting at a page boundary (end 4, next start 4)', () => {
        const one = used(checks);
        one.freeSegments([segment(kRowA, 0)]);
        expect(one.availableSize()).toBe(56);
        const two = used(checks);
        two.freeSegments([segment(kRowA.slice(0, 4), 0), segment(kRowA.slice(4), 4)]);
        expect(two.availableSize()).toBe(56);
        // Segment by segment, each to the front: [2, 1, …] where one segment gives [1, 2, …].
        expect(Array.from(one.inspect().free.subarray(0, 3))).toEqual([1, 2, 3]);
        expect(Array.from(two.inspect().free.subarray(0, 3))).toEqual([2, 1, 3]);
      });

      it('control: an empty segment is skipped, whatever its start', () => {
        const allocator = used(checks);
        allocator.freeSegments([segment([], 3), segment(kRowA, 0), segment([], 5)]);
        expect(allocator.availableSize()).toBe(56);
      });

      it.each([3, 5, 2])('refuses the unaligned start %i (4 passes)', (startPos) => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.freeSegments([segment(kRowA.slice(4), startPos)]), SegmentError, [
          `segment start ${startPos} is not page-aligned`,
        ]);
      });

      it('refuses a negative start, even an aligned one (-4)', () => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.freeSegments([segment(kPage1, -4)]), SegmentError, ['segment start -4']);
      });

      it('page 8 (kernel 2 × DCP 4): start 8 passes; start 4 (2^(k−1)) and 2 (a kernel page) are refused', () => {
        for (const startPos of [4, 2]) {
          const allocator = used(checks, 2, 4);
          expectRejected(allocator, () => allocator.freeSegments([segment(slotsOfPages([2], 8), startPos)]), SegmentError, [
            `segment start ${startPos}`,
            'page_size 8',
          ]);
        }
        const allocator = used(checks, 2, 4);
        allocator.freeSegments([segment(slotsOfPages([1], 8), 0), segment(slotsOfPages([2], 8), 8)]);
        expect(allocator.availableSize()).toBe(128 - 16);
      });

      it('refuses a segment overlapping the previous one (previous end 5, next start 4), releasing neither', () => {
        const allocator = used(checks);
        const segments = [segment(kRowA.slice(0, 5), 0), segment(kRowA.slice(4), 4)];
        expectRejected(allocator, () => allocator.freeSegments(segments), SegmentError, ['segment at 4', 'ending at 5']);
      });

      it('refuses segments out of order', () => {
        const allocator = used(checks);
        const segments = [segment(kRowA.slice(4), 4), segment(kRowA.slice(0, 4), 0)];
        expectRejected(allocator, () => allocator.freeSegments(segments), SegmentError, ['segment at 0', 'ending at 8']);
      });

      it('refuses the same segment twice', () => {
        const allocator = used(checks);
        const segments = [segment(kPage1, 0), segment(kPage1, 0)];
        expectRejected(allocator, () => allocator.freeSegments(segments), SegmentError, ['segment at 0', 'ending at 4']);
      });

      it('an empty segment in between does not hide a shared page', () => {
        const allocator = used(checks);
        const segments = [segment(kRowA.slice(0, 5), 0), segment([], 100), segment(kRowA.slice(4), 4)];
        expectRejected(allocator, () => allocator.freeSegments(segments), SegmentError, ['segment at 4', 'ending at 5']);
      });

      it('a later bad segment leaves earlier valid segments unreleased (rows A and C, then a shared page)', () => {
        const allocator = used(checks);
        const segments = [segment(kRowA, 0), segment(kRowC, 8), segment(kRowC.slice(4), 12)];
        expectRejected(allocator, () => allocator.freeSegments(segments), SegmentError, ['segment at 12', 'ending at 16']);
      });

      it('refuses something that is not an array', () => {
        const allocator = used(checks);
        expectRejected(allocator, () => allocator.freeSegments({ indices: kPage1, startPos: 0 } as unknown as FreeSegment[]), ArgumentError, [
          'freeSegments takes an array',
        ]);
      });
    });

    describe('free groups', () => {
      const make = () => used(checks);
      const openWithPage1 = (allocator: PagedAllocator): void => {
        allocator.freeGroupBegin();
        allocator.free(kPage1);
      };

      it('control: begin, free, end releases the page', () => {
        const allocator = make();
        openWithPage1(allocator);
        allocator.freeGroupEnd();
        expect(allocator.availableSize()).toBe(52);
      });

      it('refuses a nested freeGroupBegin and keeps the open group\'s queued frees', () => {
        expectRejectedInGroup(make, openWithPage1, (allocator) => allocator.freeGroupBegin(), FreeGroupError, ['cannot be nested']);
      });

      it('refuses freeGroupEnd without a begin, and a second freeGroupEnd', () => {
        const allocator = make();
        expectRejected(allocator, () => allocator.freeGroupEnd(), FreeGroupError, ['freeGroupEnd without a matching freeGroupBegin']);
        openWithPage1(allocator);
        allocator.freeGroupEnd();
        expectRejected(allocator, () => allocator.freeGroupEnd(), FreeGroupError, ['freeGroupEnd without']);
      });
    });
  });
});

describe('allocator-core:validation,checks', () => {
  describe('free', () => {
    it('control: freeing a held page passes', () => {
      const allocator = used(true);
      allocator.free(kPage1);
      expect(allocator.availableSize()).toBe(52);
    });

    it('refuses a double free, naming exactly the page', () => {
      const allocator = used(true);
      allocator.free(kPage1);
      const error = expectRejected(allocator, () => allocator.free([5]), DoubleFreeError, ['Double-free detected', '[1]']);
      expect(error.pages).toEqual([1]);
    });

    it('refuses a page that was given back (3) and one never handed out (15)', () => {
      const allocator = used(true);
      expect(expectRejected(allocator, () => allocator.free([12, 13, 14]), DoubleFreeError, ['[3]']).pages).toEqual([3]);
      expect(expectRejected(allocator, () => allocator.free([60]), DoubleFreeError, ['[15]']).pages).toEqual([15]);
    });

    it('refuses page 0: slots 0 and 3 (ps − 1); slot 4 (page 1, held) passes', () => {
      for (const slot of [0, 3]) {
        const allocator = used(true);
        expect(expectRejected(allocator, () => allocator.free([slot]), DoubleFreeError, ['[0]']).pages).toEqual([0]);
      }
      const allocator = used(true);
      allocator.free([4]);
      expect(allocator.availableSize()).toBe(52);
    });

    it('lists exactly the offending pages of a mixed call and releases none of the held ones', () => {
      const allocator = used(true);
      const error = expectRejected(allocator, () => allocator.free([4, 12, 20, 0, 13, 64]), DoubleFreeError, ['3', '0', '16']);
      expect([...error.pages].sort((a, b) => a - b)).toEqual([0, 3, 16]);
    });

    it('slot range: 19 (last slot of page 4 of 4) passes; 20, -1, 4.5 and NaN are refused, naming the slots', () => {
      const make = (): PagedAllocator => {
        const allocator = new PagedAllocator({ sizeTokens: 16, kernelPageSize: 4, needSort: false, checks: true });
        allocator.alloc(16);
        return allocator;
      };
      for (const slot of [20, -1, 4.5, Number.NaN]) {
        const allocator = make();
        const error = expectRejected(allocator, () => allocator.free([slot]), SlotRangeError, [`[${slot}]`, '[0, 20)']);
        expect(error.slots).toEqual([slot]);
      }
      const allocator = make();
      const error = expectRejected(allocator, () => allocator.free([4, 20, 8, -1]), SlotRangeError, ['20', '-1']);
      expect(error.slots).toEqual([20, -1]);
      allocator.free([19]);
      expect(allocator.availableSize()).toBe(4);
    });
  });

  describe('freeSegments', () => {
    it('refuses segments over pages that are not held, naming exactly those pages', () => {
      const allocator = used(true);
      const error = expectRejected(allocator, () => allocator.freeSegments([segment(kRowA, 0), segment(slotsOfPages([3, 4], 4), 8)]), DoubleFreeError, [
        '[3, 4]',
      ]);
      expect(error.pages).toEqual([3, 4]);
    });

    it('refuses page 0 and slots out of range', () => {
      const allocator = used(true);
      expect(expectRejected(allocator, () => allocator.freeSegments([segment([0, 1, 2, 3], 0)]), DoubleFreeError, ['[0]']).pages).toEqual([0]);
      expect(expectRejected(allocator, () => allocator.freeSegments([segment([68, 69], 0)]), SlotRangeError, ['68', '69']).slots).toEqual([68, 69]);
    });

    it.each([
      ['past the pool', [68, 69, 70, 71], [68, 69, 70, 71]],
      ['far past the pool (2^30)', [1 << 30, (1 << 30) + 1], [1 << 30, (1 << 30) + 1]],
      ['negative', [-4, -3, -2, -1], [-4, -3, -2, -1]],
      ['the most negative int32', [-(2 ** 31), -(2 ** 31) + 1], [-(2 ** 31), -(2 ** 31) + 1]],
    ] as const)('refuses a block in an Int32Array whose slots lie outside the pool (%s): the one-pass free has no range test of its own', (_name, slots, named) => {
      const allocator = used(true);
      const error = expectRejected(allocator, () => allocator.freeSegments([segment(Int32Array.from(slots), 0)]), SlotRangeError, [String(named[0])]);
      expect(error.slots).toEqual(named);
    });

    it('refuses one segment that visits a page twice, and two segments of one call on one page', () => {
      const allocator = used(true);
      expect(expectRejected(allocator, () => allocator.freeSegments([segment([...kPage1, ...kPage1], 0)]), DoubleFreeError, ['[1]']).pages).toEqual([1]);
      expect(expectRejected(allocator, () => allocator.freeSegments([segment(kPage1, 0), segment(kPage1, 4)]), DoubleFreeError, ['[1]']).pages).toEqual([1]);
    });

    it('control: a row ending mid-page keeps its page structure', () => {
      const allocator = used(true);
      allocator.freeSegments([segment(kRowA.slice(0, 6), 0)]);
      expect(allocator.availableSize()).toBe(56);
    });

    it('the in-line structure check is O(pages): slots swapped inside a block are left to the ledger, and the page is freed once', () => {
      const allocator = used(true);
      const before = allocator.availableSize();
      allocator.freeSegments([segment([4, 6, 5, 7], 0)]);
      expect(allocator.availableSize()).toBe(before + 4);
      expectRejected(allocator, () => allocator.free([4]), DoubleFreeError, ['[1]']);
    });

    it.each([
      ['two slots swapped', segment([4, 5, 7, 6], 0), ['row position 2 holds slot 7, expected 6']],
      ['a start mid-page', segment([5, 6, 7, 8], 0), ['row position 0 holds slot 5, expected 4']],
      ['a block that leaves its page', segment([4, 5, 6, 20], 0), ['row position 3 holds slot 20, expected 7']],
      ['a later segment (positions named from its start)', segment([20, 21, 23, 22], 8), ['segment at 8', 'row position 10 holds slot 23, expected 22']],
      ['a partial last block', segment([4, 5, 6, 7, 9], 0), ['row position 4 holds slot 9, expected 8']],
    ] as const)('refuses a row that breaks its page structure: %s', (_name, bad, named) => {
      const allocator = used(true);
      expectRejected(allocator, () => allocator.freeSegments([bad]), SegmentError, named);
    });

    it.each([
      ['a start mid-page (slots 9 … 14 straddle pages 1 and 2)', segment(range(9, 14), 0), ['row position 0 holds slot 9, expected 6']],
      ['a start on a multiple of 3, not of 6', segment(range(15, 20), 0), ['row position 0 holds slot 15, expected 12']],
    ] as const)('at a page that is not a power of two (6), refuses a row that breaks its page structure: %s', (_name, bad, named) => {
      const allocator = used(true, 6);
      expectRejected(allocator, () => allocator.freeSegments([bad]), SegmentError, named);
    });

    it('control: at page 6 a held page in place is given back', () => {
      const allocator = used(true, 6);
      allocator.freeSegments([segment(range(6, 11), 0)]);
      expect(allocator.availableSize()).toBe(13 * 6);
    });
  });

  describe('free groups', () => {
    const make = () => used(true);
    const plain = (allocator: PagedAllocator): void => {
      allocator.freeGroupBegin();
      allocator.free(kPage1);
    };
    const segmentFree = (allocator: PagedAllocator): void => {
      allocator.freeGroupBegin();
      allocator.freeSegments([segment(kPage1, 0)]);
    };

    it('control: different pages by plain and segment frees in one group pass', () => {
      const allocator = make();
      plain(allocator);
      allocator.freeSegments([segment(kPage2, 4)]);
      allocator.free(kRowC);
      allocator.freeGroupEnd();
      expect(allocator.availableSize()).toBe(64);
      allocator.verifyInvariants();
    });

    it('refuses a page given back twice: plain + plain', () => {
      const error = expectRejectedInGroup(make, plain, (allocator) => allocator.free([5]), DoubleFreeError, ['[1]']);
      expect(error.pages).toEqual([1]);
    });

    it('refuses a page given back twice: plain + segment', () => {
      const error = expectRejectedInGroup(make, plain, (allocator) => allocator.freeSegments([segment(kPage1, 0)]), DoubleFreeError, ['[1]']);
      expect(error.pages).toEqual([1]);
    });

    it('refuses a page given back twice: segment + plain', () => {
      const error = expectRejectedInGroup(make, segmentFree, (allocator) => allocator.free(kPage1), DoubleFreeError, ['[1]']);
      expect(error.pages).toEqual([1]);
    });

    it('refuses a page given back twice: segment + segment', () => {
      const error = expectRejectedInGroup(make, segmentFree, (allocator) => allocator.freeSegments([segment(kPage1, 8)]), DoubleFreeError, ['[1]']);
      expect(error.pages).toEqual([1]);
    });

    it('a refused call in a group queues none of its held pages', () => {
      const error = expectRejectedInGroup(make, plain, (allocator) => allocator.free([8, 4]), DoubleFreeError, ['[1]']);
      expect(error.pages).toEqual([1]);
    });
  });

  describe('lastLoc', () => {
    // Row A: prefix positions 0 … 7 on slots 4 … 11 (pages 1, 2).
    it('control: pre 2 after lastLoc 5, pre 4 after lastLoc 7, pre 0 after lastLoc -1', () => {
      const allocator = used(true);
      expect(allocator.allocExtend({ prefixLens: [2, 4, 0], seqLens: [3, 5, 1], lastLoc: [5, 7, -1] })).toHaveLength(3);
    });

    it.each([6, 4])('refuses lastLoc %i for pre 2 (5 fits)', (lastLoc) => {
      const allocator = used(true);
      expectRejected(allocator, () => allocator.allocExtend({ prefixLens: [0, 2], seqLens: [4, 3], lastLoc: [-1, lastLoc] }), LastLocError, [
        'request 1',
        `lastLoc ${lastLoc}`,
        'prefix 2',
      ]);
    });

    it('page 8 (kernel 2 × DCP 4): pre 8 after lastLoc 15 passes; pre 4 (2^(k−1)) and pre 2 (a kernel page) do not fit it', () => {
      const allocator = used(true, 2, 4);
      for (const pre of [4, 2]) {
        expectRejected(allocator, () => allocator.allocExtend({ prefixLens: [pre], seqLens: [9], lastLoc: [15] }), LastLocError, [
          'lastLoc 15',
          `prefix ${pre}`,
        ]);
      }
      expect(allocator.allocExtend({ prefixLens: [8], seqLens: [9], lastLoc: [15] })).toHaveLength(1);
    });

    // The in-line check is the contract's rule; whether lastLoc's page is held is the ledger's to
    // check (reading it cost decode 5–16%, see internal/checked-plans.ts). These run as the planner says.
    it.each([
      ['reserved page 0', 1, 2],
      ['a page given back', 13, 2],
      ['a page never handed out', 61, 2],
      ['past the last slot', 69, 2],
    ] as const)('accepts a lastLoc that fits its prefix in %s and continues after it', (_name, lastLoc, pre) => {
      const allocator = used(true);
      expect(Array.from(allocator.allocExtend({ prefixLens: [pre], seqLens: [pre + 1], lastLoc: [lastLoc] }) ?? [])).toEqual([lastLoc + 1]);
    });

    it('-1 with a non-empty prefix fits a page-aligned prefix only (pre 4: a new page; pre 2: refused)', () => {
      const allocator = used(true);
      expectRejected(allocator, () => allocator.allocExtend({ prefixLens: [2], seqLens: [3], lastLoc: [-1] }), LastLocError, ['lastLoc -1 does not fit prefix 2']);
      expect(allocator.allocExtend({ prefixLens: [4], seqLens: [5], lastLoc: [-1] })).toHaveLength(1);
    });

    it.each([0, -2, 4])('refuses lastLoc %i for an empty prefix (-1 passes)', (lastLoc) => {
      const allocator = used(true);
      expectRejected(allocator, () => allocator.allocExtend({ prefixLens: [0], seqLens: [4], lastLoc: [lastLoc] }), LastLocError, [
        `lastLoc ${lastLoc} must be -1`,
      ]);
    });

    it('decode: seq 3 after 5 and seq 5 after 7 pass; seq 3 after 6, seq 5 after 2 and seq 1 after 0 are refused', () => {
      const allocator = used(true);
      const cases = [
        [3, 6, 'lastLoc 6 does not fit seqLens - 1 2'],
        [5, 2, 'lastLoc 2 does not fit seqLens - 1 4: (lastLoc + 1) % 4 = 3, seqLens - 1 % 4 = 0'],
        [1, 0, 'lastLoc 0 must be -1 when seqLens - 1 is 0'],
      ] as const;
      for (const [seq, lastLoc, named] of cases) {
        expectRejected(allocator, () => allocator.allocDecode({ seqLens: [3, seq], lastLoc: [5, lastLoc] }), LastLocError, ['request 1', named]);
      }
      expect(Array.from(allocator.allocDecode({ seqLens: [3, 5, 1], lastLoc: [5, 7, -1] }) ?? [])).toEqual([6, 12, 16]);
    });

    it('decode at page 1 (checked in the validation pass): an empty row after 0 is refused, after -1 passes; a later bad seq comes first', () => {
      const allocator = new TokenAllocator({ sizeTokens: 16, kernelPageSize: 1, dcpSize: 1, needSort: false, checks: true });
      allocator.alloc(2);
      expectRejected(allocator, () => allocator.allocDecode({ seqLens: [3, 1, 2], lastLoc: [1, 0, 2] }), LastLocError, ['request 1', 'lastLoc 0 must be -1']);
      expectRejected(allocator, () => allocator.allocDecode({ seqLens: [1, 0], lastLoc: [0, 2] }), ArgumentError, ['request 1', 'seqLens 0']);
      expect(allocator.allocDecode({ seqLens: [3, 1], lastLoc: [1, -1] })).toHaveLength(2);
      const off = new TokenAllocator({ sizeTokens: 16, kernelPageSize: 1, dcpSize: 1, needSort: false, checks: false });
      expect(off.allocDecode({ seqLens: [1], lastLoc: [0] })).toHaveLength(1);
    });
  });
});

describe('allocator-core:validation,unchanged', () => {
  it('the pool after the refused calls above still hands out the same pages as a fresh twin', () => {
    const allocator = used(true);
    const twin = used(true);
    expect(() => allocator.alloc(7)).toThrow(ArgumentError);
    expect(() => allocator.free([12])).toThrow(DoubleFreeError);
    expect(() => allocator.freeSegments([segment(kRowA.slice(0, 5), 0), segment(kRowA.slice(4), 4)])).toThrow(SegmentError);
    expect(Array.from(allocator.alloc(16) ?? [])).toEqual(Array.from(twin.alloc(16) ?? []));
    expect(Array.from(allocator.alloc(16) ?? [])).toEqual(range(36, 51));
  });
});

describe('allocator-core:validation,segment-slots', () => {
  // A regression: the checked segment free checked a plain array's slots segment by segment, so a
  // bad slot in a later segment was met after the earlier segments' pages had been marked queued
  // (their pages then stayed out of every list). Now every slot is checked before any page.
  const kinds = [
    { name: 'paged', make: (): BaseAllocator => new PagedAllocator({ sizeTokens: 16, kernelPageSize: 4, needSort: false, checks: true }), bad: 99.5 },
    { name: 'token', make: (): BaseAllocator => new TokenAllocator({ sizeTokens: 16, needSort: false, checks: true }), bad: 99 },
  ];
  describe.each(kinds)('$name', ({ make, bad }) => {
    const held = (allocator: BaseAllocator): number[] => Array.from(allocator.alloc(8) as Int32Array);
    const segmentsWith = (row: readonly number[], badIn: 'first' | 'last'): FreeSegment[] => {
      const half = row.length / 2;
      const first = row.slice(0, half);
      const last = row.slice(half);
      (badIn === 'first' ? first : last)[half - 1] = bad;
      return [segment(first, 0), segment(last, half)];
    };

    it.each(['first', 'last'] as const)('refuses a bad slot in the %s segment of plain arrays, changing nothing', (badIn) => {
      const allocator = make();
      const row = held(allocator);
      const error = expectRejected(allocator, () => allocator.freeSegments(segmentsWith(row, badIn)), SlotRangeError, [String(bad)]);
      expect(error.slots).toEqual([bad]);
      allocator.verifyInvariants();
      allocator.freeSegments([segment(row, 0)]);
      expect(allocator.availableSize()).toBe(16);
    });

    it.each(['first', 'last'] as const)('refuses it inside a free group too (%s segment), queueing nothing', (badIn) => {
      let row: number[] = [];
      expectRejectedInGroup(
        make,
        (allocator) => {
          row = held(allocator);
          allocator.freeGroupBegin();
        },
        (allocator) => allocator.freeSegments(segmentsWith(row, badIn)),
        SlotRangeError,
        [String(bad)],
      );
    });
  });
});
