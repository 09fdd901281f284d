import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAllocator, type AllocatorConfig, type AllocatorProvider, type FreeSegment, type PageAllocator } from '@kvfuzz/allocator-core';
import bitmapProvider from './bitmap-allocator.js';
import fifoProvider from './fifo-allocator.js';

// The two alternative allocators against CONTRACT.md:
// examples per rule (STYLE rule 18: a control, the rule broken alone, "threw and nothing
// changed"), the reuse order each one promises, and a differential property test that drives
// both alternatives and the reference with the same logical program.

const kProviders: readonly AllocatorProvider[] = [bitmapProvider, fifoProvider];

/** Slots of `pages`, each page whole, in order. */
function slotsOfPages(pages: readonly number[], pageSize: number): number[] {
  return pages.flatMap((page) => Array.from({ length: pageSize }, (_, offset) => page * pageSize + offset));
}

/** Distinct pages of `slots` in first-seen order. */
function pagesOf(slots: ArrayLike<number> | null, pageSize: number): number[] {
  const pages: number[] = [];
  for (const slot of Array.from(slots ?? [])) {
    const page = Math.floor(slot / pageSize);
    if (!pages.includes(page)) pages.push(page);
  }
  return pages;
}

function list(slots: Int32Array | null): number[] | null {
  return slots === null ? null : Array.from(slots);
}

/** A deep copy of the snapshot, so a later comparison cannot be fooled by aliasing. */
function snapshot(allocator: PageAllocator): unknown {
  return structuredClone(allocator.backupState());
}

/** `call` throws an error named `name` whose message names every `named` value, and nothing changed. */
function expectRejected(allocator: PageAllocator, call: () => unknown, name: string, named: readonly (string | number)[] = []): void {
  const before = snapshot(allocator);
  const availableBefore = allocator.availableSize();
  let caught: unknown = null;
  try {
    call();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'the call must throw').toBeInstanceOf(Error);
  expect((caught as Error).name).toBe(name);
  for (const value of named) expect((caught as Error).message).toContain(String(value));
  expect(allocator.availableSize()).toBe(availableBefore);
  expect(snapshot(allocator)).toEqual(before);
}

function verify(allocator: PageAllocator): void {
  (allocator as unknown as { verifyInvariants(): void }).verifyInvariants();
}

describe.each(kProviders)('alternatives:$name', (provider) => {
  /** 16 pages of `ps` slots (kernel page `ps`, DCP 1). */
  function make(ps = 4, checks = true, pages = 16): PageAllocator {
    return provider.create({ sizeTokens: pages * ps, kernelPageSize: ps, dcpSize: 1, needSort: false, checks });
  }

  describe('config', () => {
    it('fills the defaults (kernel page 1, DCP 1) and widens the page by the DCP size', () => {
      const plain = provider.create({ sizeTokens: 10 });
      expect([plain.pageSize, plain.numPages, plain.availableSize()]).toEqual([1, 10, 10]);
      const widened = provider.create({ sizeTokens: 64, kernelPageSize: 2, dcpSize: 4, needSort: true, checks: true });
      expect([widened.pageSize, widened.numPages, widened.availableSize()]).toEqual([8, 8, 64]);
    });

    it.each<[AllocatorConfig, string]>([
      [{ sizeTokens: 0 }, 'sizeTokens 0'],
      [{ sizeTokens: -8 }, 'sizeTokens -8'],
      [{ sizeTokens: 8.5 }, 'sizeTokens 8.5'],
      [{ sizeTokens: 8, kernelPageSize: 0 }, 'kernelPageSize 0'],
      [{ sizeTokens: 8, dcpSize: -2 }, 'dcpSize -2'],
      [{ sizeTokens: 24, dcpSize: 3 }, 'dcpSize 3'],
      [{ sizeTokens: 48, dcpSize: 6 }, 'dcpSize 6'],
      [{ sizeTokens: 30, kernelPageSize: 2, dcpSize: 2 }, 'sizeTokens 30'],
      [{ sizeTokens: 36, kernelPageSize: 4, dcpSize: 2 }, 'page size 8'],
    ])('rejects %o naming %s', (config, named) => {
      let caught: unknown = null;
      try {
        provider.create(config);
      } catch (error) {
        caught = error;
      }
      expect((caught as Error).name).toBe('ConfigError');
      expect((caught as Error).message).toContain(named);
    });

    it('accepts DCP 16 (2^4) and a size of exactly one page', () => {
      expect(provider.create({ sizeTokens: 32, kernelPageSize: 2, dcpSize: 16 }).numPages).toBe(1);
    });
  });

  describe('alloc', () => {
    it('hands out whole pages, never page 0, and alloc(0) is empty', () => {
      const a = make();
      expect(list(a.alloc(0))).toEqual([]);
      const out = a.alloc(16);
      expect(out).toHaveLength(16);
      const pages = pagesOf(out, 4);
      expect(pages).toHaveLength(4);
      expect(pages).not.toContain(0);
      expect(list(out)).toEqual(slotsOfPages(pages, 4));
      expect(a.availableSize()).toBe(48);
      verify(a);
    });

    it('returns null when short, leaving the state as it was; the exact remainder still fits', () => {
      const a = make();
      a.alloc(40);
      const before = snapshot(a);
      expect(a.alloc(28)).toBeNull();
      expect(a.availableSize()).toBe(24);
      expect(snapshot(a)).toEqual(before);
      expect(a.alloc(24)).toHaveLength(24);
      expect(a.alloc(4)).toBeNull();
      expect(a.availableSize()).toBe(0);
    });

    describe.each([true, false])('checks %s', (checks) => {
      it.each([-4, -1, 4.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects the size %s', (size) => {
        const a = make(4, checks);
        expectRejected(a, () => a.alloc(size), 'ArgumentError', [`alloc size ${size}`]);
      });

      it.each([7, 9, 2])('rejects %i, not a multiple of page size 4 (8 passes)', (size) => {
        const a = make(4, checks);
        expectRejected(a, () => a.alloc(size), 'ArgumentError', [`${size}`, 'page size 4']);
        expect(a.alloc(8)).toHaveLength(8);
      });
    });
  });

  describe('allocExtend', () => {
    it('lays out pre=2, seq=11 (ps 4): part 1 in lastLoc\'s page, one whole new page, a 3-slot tail at offsets 0..2', () => {
      const a = make();
      const prefix = list(a.allocExtend({ prefixLens: [0], seqLens: [2], lastLoc: [-1] })) ?? [];
      expect(prefix).toHaveLength(2);
      const lastLoc = prefix[1] as number;
      const out = list(a.allocExtend({ prefixLens: [2], seqLens: [11], lastLoc: [lastLoc] })) ?? [];
      expect(out).toHaveLength(9);
      expect(out.slice(0, 2)).toEqual([lastLoc + 1, lastLoc + 2]);
      const [whole, tail] = pagesOf(out.slice(2), 4) as [number, number];
      expect(out.slice(2, 6)).toEqual(slotsOfPages([whole], 4));
      expect(out.slice(6)).toEqual([tail * 4, tail * 4 + 1, tail * 4 + 2]);
      expect(new Set([Math.floor(lastLoc / 4), whole, tail]).size).toBe(3);
      expect(a.availableSize()).toBe(13 * 4);
      verify(a);
    });

    it('on a fresh pool (pages 1, 2, 3 free first in both): pre=2, seq=11, lastLoc 5 → [6, 7] + page 2 + offsets 0..2 of page 3', () => {
      const a = make();
      expect(list(a.allocExtend({ prefixLens: [0], seqLens: [2], lastLoc: [-1] }))).toEqual([4, 5]);
      expect(list(a.allocExtend({ prefixLens: [2], seqLens: [11], lastLoc: [5] }))).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14]);
    });

    it('takes new pages request after request, and a request that stays in its page takes none', () => {
      const a = make();
      const row = list(a.allocExtend({ prefixLens: [0], seqLens: [5], lastLoc: [-1] })) ?? [];
      const availableBefore = a.availableSize();
      // Request 0 grows 5 → 7 inside its page; request 1 is new with 6 tokens; request 2 adds nothing.
      const out = list(a.allocExtend({ prefixLens: [5, 0, 5], seqLens: [7, 6, 5], lastLoc: [row[4] as number, -1, row[4] as number] })) ?? [];
      expect(out).toHaveLength(8);
      expect(out.slice(0, 2)).toEqual([(row[4] as number) + 1, (row[4] as number) + 2]);
      const fresh = pagesOf(out.slice(2), 4);
      expect(fresh).toHaveLength(2);
      expect(out.slice(2)).toEqual([...slotsOfPages([fresh[0] as number], 4), (fresh[1] as number) * 4, (fresh[1] as number) * 4 + 1]);
      expect(a.availableSize()).toBe(availableBefore - 8);
    });

    it('an empty batch and seq == prefix return nothing and take nothing', () => {
      const a = make();
      expect(list(a.allocExtend({ prefixLens: [], seqLens: [], lastLoc: [] }))).toEqual([]);
      const row = list(a.alloc(4)) ?? [];
      expect(list(a.allocExtend({ prefixLens: [4], seqLens: [4], lastLoc: [row[3] as number] }))).toEqual([]);
      expect(a.availableSize()).toBe(60);
    });

    it('returns null when Σ new pages exceeds the free pages, changing nothing; one page less fits', () => {
      const a = make();
      a.alloc(48); // 4 pages left
      const before = snapshot(a);
      expect(a.allocExtend({ prefixLens: [0, 0], seqLens: [9, 8], lastLoc: [-1, -1] })).toBeNull(); // 3 + 2 pages
      expect(a.availableSize()).toBe(16);
      expect(snapshot(a)).toEqual(before);
      expect(a.allocExtend({ prefixLens: [0, 0], seqLens: [9, 4], lastLoc: [-1, -1] })).toHaveLength(13); // 3 + 1 pages
      expect(a.availableSize()).toBe(0);
    });

    describe.each([true, false])('checks %s', (checks) => {
      it.each<[string, { prefixLens: number[]; seqLens: number[]; lastLoc: number[] }, string]>([
        ['arrays of different lengths', { prefixLens: [0, 0], seqLens: [1], lastLoc: [-1, -1] }, 'prefixLens 2, seqLens 1'],
        ['lastLoc shorter', { prefixLens: [0], seqLens: [1], lastLoc: [] }, 'lastLoc 0'],
        ['a negative prefix', { prefixLens: [-1], seqLens: [3], lastLoc: [-1] }, 'prefixLens -1'],
        ['a non-integer seq', { prefixLens: [0], seqLens: [2.5], lastLoc: [-1] }, 'seqLens 2.5'],
        ['seq < prefix', { prefixLens: [0, 3], seqLens: [2, 2], lastLoc: [-1, 6] }, 'seqLens 2 < prefixLens 3'],
      ])('rejects %s', (_label, batch, named) => {
        const a = make(4, checks);
        a.alloc(8); // pages for the lastLoc values above to point into
        expectRejected(a, () => a.allocExtend(batch), 'ArgumentError', [named]);
      });
    });

    describe('checks on: lastLoc must fit its prefix', () => {
      it.each<[string, number, number, string]>([
        ['not −1 for an empty prefix', 0, 5, 'lastLoc 5 must be -1'],
        ['−1 for a non-empty prefix', 2, -1, 'lastLoc -1'],
        ['(lastLoc + 1) % ps ≠ prefix % ps', 2, 6, 'lastLoc 6 does not fit prefixLens 2'],
        ['in a free page', 2, 13, 'page 3'],
        ['in page 0', 2, 1, 'page 0'],
        ['past the pool', 2, 4 * 17 + 1, 'outside'],
      ])('rejects lastLoc %s', (_label, pre, lastLoc, named) => {
        const a = make();
        a.alloc(8); // pages 1 and 2 held on a fresh pool in both alternatives
        expectRejected(a, () => a.allocExtend({ prefixLens: [0, pre], seqLens: [3, 6], lastLoc: [-1, lastLoc] }), 'LastLocError', [named]);
      });

      it('control: the consistent lastLoc passes (prefix 2 → lastLoc at offset 1 of a held page)', () => {
        const a = make();
        a.alloc(8);
        expect(a.allocExtend({ prefixLens: [0, 2], seqLens: [3, 6], lastLoc: [-1, 5] })).toHaveLength(7);
      });

      it('rejects a lastLoc in a page given back in the open group', () => {
        const a = make();
        a.alloc(8);
        a.freeGroupBegin();
        a.free([4]);
        expect(() => a.allocExtend({ prefixLens: [2], seqLens: [3], lastLoc: [5] })).toThrow(/page 1/);
        a.freeGroupEnd();
      });
    });
  });

  describe('allocDecode', () => {
    it('opens a fresh page (offset 0) exactly when the new position is page-aligned; else lastLoc + 1', () => {
      const a = make();
      const row = list(a.alloc(8)) ?? [];
      const last = row[7] as number;
      const out = list(a.allocDecode({ seqLens: [9, 1, 7], lastLoc: [last, -1, row[5] as number] })) ?? [];
      expect(out).toHaveLength(3);
      expect((out[0] as number) % 4).toBe(0);
      expect((out[1] as number) % 4).toBe(0);
      expect(out[2]).toBe(row[6]);
      expect(new Set(pagesOf(out, 4)).size).toBe(3);
      expect(a.availableSize()).toBe(12 * 4);
      const next = list(a.allocDecode({ seqLens: [10], lastLoc: [out[0] as number] }));
      expect(next).toEqual([(out[0] as number) + 1]);
      expect(a.availableSize()).toBe(12 * 4);
    });

    it('at page size 1 every request takes a fresh page', () => {
      const a = make(1);
      const held = list(a.alloc(2)) ?? [];
      const out = list(a.allocDecode({ seqLens: [1, 2, 3], lastLoc: [-1, held[0] as number, held[1] as number] })) ?? [];
      expect(new Set([...out, ...held]).size).toBe(5);
      expect(out).not.toContain(0);
      expect(a.availableSize()).toBe(11);
    });

    it('returns null when short, changing nothing', () => {
      const a = make();
      a.alloc(60);
      const before = snapshot(a);
      expect(a.allocDecode({ seqLens: [1, 1], lastLoc: [-1, -1] })).toBeNull();
      expect(snapshot(a)).toEqual(before);
      expect(a.allocDecode({ seqLens: [1], lastLoc: [-1] })).toHaveLength(1);
    });

    describe.each([true, false])('checks %s', (checks) => {
      it.each<[string, { seqLens: number[]; lastLoc: number[] }, string]>([
        ['arrays of different lengths', { seqLens: [1, 1], lastLoc: [-1] }, 'seqLens 2, lastLoc 1'],
        ['seq 0', { seqLens: [0], lastLoc: [-1] }, 'seqLens 0'],
        ['a non-integer seq', { seqLens: [1.5], lastLoc: [-1] }, 'seqLens 1.5'],
      ])('rejects %s', (_label, batch, named) => {
        const a = make(4, checks);
        expectRejected(a, () => a.allocDecode(batch), 'ArgumentError', [named]);
      });
    });

    it.each<[string, number, number]>([
      ['seq 1 with a lastLoc', 1, 4],
      ['seq 6 with lastLoc 5: (5 + 1) % 4 ≠ (6 − 1) % 4', 6, 5],
      ['seq 3 with lastLoc in a free page', 3, 13],
    ])('checks on: rejects %s', (_label, seq, lastLoc) => {
      const a = make();
      a.alloc(8);
      expectRejected(a, () => a.allocDecode({ seqLens: [seq], lastLoc: [lastLoc] }), 'LastLocError', [`lastLoc ${lastLoc}`]);
    });
  });

  describe('free', () => {
    it('gives back the whole page of any slot, each page once per call', () => {
      const a = make();
      const out = list(a.alloc(8)) ?? [];
      a.free([out[1] as number, out[2] as number, out[3] as number]);
      expect(a.availableSize()).toBe(15 * 4);
      a.free([]);
      expect(a.availableSize()).toBe(15 * 4);
      verify(a);
    });

    it.each<[string, number[], string, string]>([
      ['a slot past the pool', [4, 68], 'SlotRangeError', '68'],
      ['a negative slot', [-1], 'SlotRangeError', '-1'],
      ['a non-integer slot', [4.5], 'SlotRangeError', '4.5'],
      ['page 0', [2], 'DoubleFreeError', '[0]'],
      ['a free page', [12], 'DoubleFreeError', '[3]'],
      ['a held page and a free one (nothing released)', [4, 5, 12, 13], 'DoubleFreeError', '[3]'],
    ])('checks on: rejects %s', (_label, indices, name, named) => {
      const a = make();
      a.alloc(8); // pages 1, 2 on a fresh pool
      expectRejected(a, () => a.free(indices), name, [named]);
      a.free([4, 8]);
      expect(a.availableSize()).toBe(64);
    });

    it('checks on: rejects a page already given back in the open group, and the group still releases it once', () => {
      const a = make();
      a.alloc(8);
      a.freeGroupBegin();
      a.free([4]);
      const available = a.availableSize();
      expect(() => a.free([7])).toThrow(/\[1\]/);
      expect(() => a.freeSegments([{ indices: [4, 5, 6, 7], startPos: 0 }])).toThrow(/\[1\]/);
      expect(a.availableSize()).toBe(available);
      a.freeGroupEnd();
      expect(a.availableSize()).toBe(60);
      verify(a);
    });
  });

  describe('freeSegments', () => {
    /** A row of 11 positions on three pages (ps 4), from one extend on a fresh pool. */
    function withRow(checks = true): { a: PageAllocator; row: number[] } {
      const a = make(4, checks);
      const row = list(a.allocExtend({ prefixLens: [0], seqLens: [11], lastLoc: [-1] })) ?? [];
      return { a, row };
    }

    it('gives back page-aligned, page-disjoint segments; empty segments are skipped, even unaligned ones', () => {
      const { a, row } = withRow();
      a.freeSegments([{ indices: row.slice(0, 4), startPos: 0 }, { indices: [], startPos: 5 }, { indices: row.slice(8), startPos: 8 }]);
      expect(a.availableSize()).toBe(15 * 4);
      a.freeSegments([{ indices: row.slice(4, 6), startPos: 4 }]); // a partial block: its page is given back
      expect(a.availableSize()).toBe(64);
      a.freeSegments([]);
      verify(a);
    });

    describe.each([true, false])('checks %s', (checks) => {
      it.each<[string, (row: number[]) => FreeSegment[], string]>([
        ['an unaligned lone start', (row) => [{ indices: row.slice(2, 8), startPos: 2 }], 'not page-aligned'],
        ['segments meeting inside a page', (row) => [{ indices: row.slice(0, 6), startPos: 0 }, { indices: row.slice(6), startPos: 6 }], 'segment at 6 shares a page'],
        ['overlapping segments', (row) => [{ indices: row.slice(0, 5), startPos: 0 }, { indices: row.slice(4), startPos: 4 }], 'segment at 4 shares a page'],
        ['segments out of order', (row) => [{ indices: row.slice(4), startPos: 4 }, { indices: row.slice(0, 4), startPos: 0 }], 'segment at 0 shares a page'],
        ['a negative start', (row) => [{ indices: row.slice(0, 4), startPos: -4 }], 'segment start -4'],
      ])('rejects %s (the valid first segment is not released)', (_label, build, named) => {
        const { a, row } = withRow(checks);
        expectRejected(a, () => a.freeSegments(build(row)), 'SegmentError', [named]);
      });
    });

    it('control: adjacent aligned segments pass', () => {
      const { a, row } = withRow();
      a.freeSegments([{ indices: row.slice(0, 4), startPos: 0 }, { indices: row.slice(4), startPos: 4 }]);
      expect(a.availableSize()).toBe(64);
    });

    it.each<[string, (row: number[]) => FreeSegment[], string, string]>([
      ['a row that breaks its page structure', (row) => [{ indices: [row[1] as number, ...row.slice(1, 4)], startPos: 0 }], 'SegmentError', 'page structure'],
      ['a page twice across segments', (row) => [{ indices: row.slice(0, 4), startPos: 0 }, { indices: row.slice(0, 4), startPos: 4 }], 'DoubleFreeError', '[1]'],
      ['a free page', () => [{ indices: slotsOfPages([9], 4), startPos: 0 }], 'DoubleFreeError', '[9]'],
      ['page 0', () => [{ indices: [0, 1], startPos: 0 }], 'DoubleFreeError', '[0]'],
      ['a slot past the pool', () => [{ indices: [68], startPos: 0 }], 'SlotRangeError', '68'],
    ])('checks on: rejects %s', (_label, build, name, named) => {
      const { a, row } = withRow();
      expectRejected(a, () => a.freeSegments(build(row)), name, [named]);
    });
  });

  describe('free groups', () => {
    it('defers every free to freeGroupEnd, copying the arrays at call time', () => {
      const a = make();
      const row = Int32Array.from(a.alloc(12) ?? []);
      const segment = row.slice(4, 8);
      a.freeGroupBegin();
      a.free(row.subarray(0, 4));
      a.freeSegments([{ indices: segment, startPos: 0 }]);
      segment.fill(-7); // callers overwrite their arrays as soon as a call returns
      row.fill(-7);
      expect(a.availableSize()).toBe(13 * 4);
      a.freeGroupEnd();
      expect(a.availableSize()).toBe(15 * 4);
      verify(a);
    });

    it('rejects a nested begin and an end without a begin, changing nothing', () => {
      const a = make();
      a.alloc(8);
      expectRejected(a, () => a.freeGroupEnd(), 'FreeGroupError', ['freeGroupEnd']);
      a.freeGroupBegin();
      a.free([4]);
      expect(() => a.freeGroupBegin()).toThrow(/nested/);
      expect(a.availableSize()).toBe(14 * 4);
      a.freeGroupEnd();
      expect(a.availableSize()).toBe(15 * 4);
      a.freeGroupBegin();
      a.freeGroupEnd(); // an empty group is fine
    });

    it('refuses backupState and restoreState inside a group', () => {
      const a = make();
      const state = a.backupState();
      a.freeGroupBegin();
      expect(() => a.backupState()).toThrow();
      expect(() => a.restoreState(state)).toThrow();
      a.freeGroupEnd();
    });
  });

  describe('backupState / restoreState', () => {
    it('round trips: allocations since are free again, frees since undone; the snapshot is reusable', () => {
      const a = make();
      const kept = list(a.alloc(8)) ?? [];
      const state = a.backupState();
      const frozen = structuredClone(state);
      a.free(kept);
      a.alloc(40);
      a.restoreState(state);
      expect(a.availableSize()).toBe(14 * 4);
      expect(() => a.free([...kept, 12])).toThrow(); // page 3 is free again
      a.free(kept);
      expect(a.availableSize()).toBe(64);
      a.restoreState(state);
      expect(snapshot(a)).toEqual(frozen);
      expect(state).toEqual(frozen); // never aliased by the allocator
      verify(a);
    });

    it('restores the reuse order too: the same allocations follow', () => {
      const a = make();
      a.alloc(20);
      a.free(slotsOfPages([2, 4], 4));
      const state = a.backupState();
      const first = list(a.alloc(16));
      a.restoreState(state);
      expect(list(a.alloc(16))).toEqual(first);
    });

    it('rejects what backupState did not return, and a snapshot of another geometry', () => {
      const a = make();
      expectRejected(a, () => a.restoreState({ kind: 'something else' }), 'StateError');
      expectRejected(a, () => a.restoreState(null), 'StateError');
      expectRejected(a, () => a.restoreState(make(2).backupState()), 'StateError');
    });
  });

  it('clear frees everything and closes the group', () => {
    const a = make();
    a.alloc(24);
    a.freeGroupBegin();
    a.free([4]);
    a.clear();
    expect(a.availableSize()).toBe(64);
    a.freeGroupBegin(); // not nested: clear closed the old one
    a.freeGroupEnd();
    expect(a.alloc(64)).toHaveLength(64);
    verify(a);
  });
});

describe('alternatives:order', () => {
  const config = { sizeTokens: 64, kernelPageSize: 4, dcpSize: 1, needSort: false, checks: true };

  it('bitmap-lowest-first takes the lowest free page ids, whatever order they came back in', () => {
    const a = bitmapProvider.create(config);
    a.alloc(32); // pages 1 … 8
    a.free(slotsOfPages([6], 4));
    a.free(slotsOfPages([2], 4));
    a.free(slotsOfPages([5], 4));
    expect(pagesOf(a.alloc(16), 4)).toEqual([2, 5, 6, 9]);
    expect(pagesOf(a.allocExtend({ prefixLens: [0, 0], seqLens: [3, 5], lastLoc: [-1, -1] }), 4)).toEqual([10, 11, 12]);
    expect(pagesOf(a.allocDecode({ seqLens: [1], lastLoc: [-1] }), 4)).toEqual([13]);
  });

  it('bitmap-lowest-first ignores needSort: the same lowest-first order', () => {
    const a = bitmapProvider.create({ ...config, needSort: true });
    a.alloc(16);
    a.free(slotsOfPages([3, 1], 4));
    expect(pagesOf(a.alloc(8), 4)).toEqual([1, 3]);
  });

  it('fifo-queue reuses a given-back page only after every page given back (or never handed out) before it', () => {
    const a = fifoProvider.create(config);
    a.alloc(32); // pages 1 … 8; the queue holds 9 … 16
    a.free(slotsOfPages([6], 4));
    a.free(slotsOfPages([2], 4));
    a.free(slotsOfPages([5], 4)); // queue: 9 … 16, 6, 2, 5
    expect(pagesOf(a.alloc(32), 4)).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    expect(pagesOf(a.allocExtend({ prefixLens: [0, 0], seqLens: [3, 1], lastLoc: [-1, -1] }), 4)).toEqual([6, 2]);
    a.free(slotsOfPages([1], 4)); // queue: 5, 1
    expect(pagesOf(a.allocDecode({ seqLens: [1, 1], lastLoc: [-1, -1] }), 4)).toEqual([5, 1]);
  });

  it('fifo-queue releases a group in the order its pages were given back', () => {
    const a = fifoProvider.create({ ...config, sizeTokens: 16 });
    a.alloc(16); // pages 1 … 4, queue empty
    a.freeGroupBegin();
    a.free(slotsOfPages([3], 4));
    a.freeSegments([{ indices: slotsOfPages([4, 1], 4), startPos: 0 }]);
    a.freeGroupEnd();
    expect(pagesOf(a.alloc(12), 4)).toEqual([3, 4, 1]);
  });
});

// ---- the differential property test ------------------------------------------------------------

/** Geometry of one differential run. */
interface Geometry {
  readonly kernelPageSize: number;
  readonly dcpSize: number;
  readonly pages: number;
  readonly needSort: boolean;
  readonly checks: boolean;
}

/** One logical command; rows are named by picks resolved modulo the live rows, so every command stays valid. */
type Command =
  | { readonly op: 'alloc'; readonly pages: number }
  | { readonly op: 'extend'; readonly requests: readonly { readonly pick: number | null; readonly growPages: number; readonly growSlots: number }[] }
  | { readonly op: 'decode'; readonly picks: readonly (number | null)[] }
  | { readonly op: 'freeRow'; readonly pick: number }
  | { readonly op: 'freeSegments'; readonly pick: number; readonly cuts: readonly number[]; readonly keepBlocks: number }
  | { readonly op: 'groupBegin' }
  | { readonly op: 'groupEnd' }
  | { readonly op: 'backup' }
  | { readonly op: 'restore' }
  | { readonly op: 'clear' }
  | { readonly op: 'reject'; readonly kind: number };

const kGeometry: fc.Arbitrary<Geometry> = fc.record({
  kernelPageSize: fc.constantFrom(1, 2, 3, 4, 8),
  dcpSize: fc.constantFrom(1, 2, 4),
  pages: fc.integer({ min: 1, max: 24 }),
  needSort: fc.boolean(),
  checks: fc.boolean(),
});

/** Runs of the differential test: about 3000 commands, under 2 s on a small CI machine. */
const kDifferentialRuns = 150;
/** Commands per run: long enough to fill small pools, reuse pages and restore old snapshots. */
const kCommandsPerRunMax = 40;

const kPick = fc.nat(1000);
const kCommand: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('alloc' as const), pages: fc.nat(6) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('extend' as const),
      // Growth in whole pages plus a remainder (taken modulo the page size), so every geometry sees every extend shape.
      requests: fc.array(fc.record({ pick: fc.option(kPick, { nil: null }), growPages: fc.nat(3), growSlots: fc.nat(63) }), { maxLength: 4 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('decode' as const), picks: fc.array(fc.option(kPick, { nil: null }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('freeRow' as const), pick: kPick }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('freeSegments' as const), pick: kPick, cuts: fc.array(fc.nat(12), { maxLength: 3 }), keepBlocks: fc.nat(4) }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'groupBegin' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'groupEnd' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'backup' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'restore' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reject' as const), kind: fc.nat(7) }) },
);

// owner[p] values besides a row id (≥ 0).
const kOwnerFree = -1;
const kOwnerQueued = -2;

/** One implementation under the differential test, with its own rows: page ids differ between implementations. */
interface Subject {
  readonly name: string;
  readonly allocator: PageAllocator;
  rows: Map<number, number[]>;
  owner: Int32Array;
  saved: { readonly state: unknown; readonly rows: Map<number, number[]>; readonly owner: Int32Array } | null;
}

/** What every subject shares: the logical rows (same ids, same lengths) and the group flag. */
interface Logical {
  readonly ps: number;
  readonly numPages: number;
  live: number[];
  nextId: number;
  groupOpen: boolean;
  readonly checks: boolean;
  // Row ids alive at the last backup (ids are never reused, so nextId is not restored).
  saved: readonly number[] | null;
}

function copyRows(rows: Map<number, number[]>): Map<number, number[]> {
  return new Map(Array.from(rows, ([id, row]) => [id, row.slice()]));
}

/** Applies the call to every subject; all must agree on null vs non-null. */
function callAll<T>(subjects: readonly Subject[], call: (s: Subject) => T | null): (T | null)[] {
  const results = subjects.map(call);
  const nulls = results.map((r) => r === null);
  expect(nulls, `null-vs-non-null differs between ${subjects.map((s) => s.name).join(', ')}`).toEqual(nulls.map(() => nulls[0]));
  return results;
}

/** New slots for row `id` of subject `s`: unique, in pages that were free, following the row page structure. */
function appendToRow(s: Subject, m: Logical, id: number, slots: ArrayLike<number>, start: number, count: number): void {
  const row = s.rows.get(id) ?? [];
  s.rows.set(id, row);
  for (let k = 0; k < count; k++) {
    const slot = slots[start + k] as number;
    const pos = row.length;
    const page = Math.floor(slot / m.ps);
    expect(slot % m.ps, `${s.name}: slot ${slot} at row position ${pos}`).toBe(pos % m.ps);
    if (pos % m.ps === 0) {
      expect(page >= 1 && page <= m.numPages, `${s.name}: page ${page} outside [1, ${m.numPages}]`).toBe(true);
      expect(s.owner[page], `${s.name}: page ${page} handed out while not free`).toBe(kOwnerFree);
      s.owner[page] = id;
    } else {
      expect(page, `${s.name}: slot ${slot} at position ${pos} leaves its page block`).toBe(Math.floor((row[pos - 1] as number) / m.ps));
      expect(s.owner[page], `${s.name}: slot ${slot} in a page the row does not hold`).toBe(id);
    }
    row.push(slot);
  }
}

/** Pages of `row` from position `from` on are given back (queued in an open group). */
function releaseRowTail(s: Subject, m: Logical, id: number, from: number): void {
  const row = s.rows.get(id) ?? [];
  for (let pos = from; pos < row.length; pos += m.ps) s.owner[Math.floor((row[pos] as number) / m.ps)] = m.groupOpen ? kOwnerQueued : kOwnerFree;
  row.length = from;
}

function freePageCount(s: Subject, m: Logical): number {
  let free = 0;
  for (let page = 1; page <= m.numPages; page++) if (s.owner[page] === kOwnerFree) free++;
  return free;
}

function expectAllRejected(subjects: readonly Subject[], m: Logical, call: (s: Subject) => unknown): void {
  for (const s of subjects) {
    const available = s.allocator.availableSize();
    const state = m.groupOpen ? null : structuredClone(s.allocator.backupState());
    expect(() => call(s), `${s.name} must reject`).toThrow();
    expect(s.allocator.availableSize()).toBe(available);
    if (state !== null) expect(structuredClone(s.allocator.backupState()), `${s.name}: rejected call changed the snapshot`).toEqual(state);
  }
}

function runCommand(subjects: readonly Subject[], m: Logical, c: Command): void {
  const ps = m.ps;
  const pick = (p: number): number | null => (m.live.length === 0 ? null : (m.live[p % m.live.length] as number));
  switch (c.op) {
    case 'alloc': {
      const free = freePageCount(subjects[0] as Subject, m);
      const results = callAll(subjects, (s) => s.allocator.alloc(c.pages * ps));
      expect(results[0] === null).toBe(c.pages > free);
      if (results[0] === null) return;
      const id = m.nextId++;
      m.live.push(id);
      subjects.forEach((s, i) => appendToRow(s, m, id, results[i] as Int32Array, 0, c.pages * ps));
      return;
    }
    case 'extend': {
      // Distinct existing rows (a row twice in one batch would be a stale lastLoc), or new rows.
      const ids: (number | null)[] = [];
      const grows: number[] = [];
      for (const r of c.requests) {
        const id = r.pick === null ? null : pick(r.pick);
        if (id !== null && ids.includes(id)) continue;
        ids.push(id);
        grows.push(r.growPages * ps + (r.growSlots % ps));
      }
      const needPages = ids.reduce<number>((sum, id, i) => {
        const pre = id === null ? 0 : ((subjects[0] as Subject).rows.get(id) ?? []).length;
        return sum + Math.ceil((pre + (grows[i] as number)) / ps) - Math.ceil(pre / ps);
      }, 0);
      const free = freePageCount(subjects[0] as Subject, m);
      const newIds = ids.map((id) => id ?? -1);
      const results = callAll(subjects, (s) => {
        const rows = ids.map((id) => (id === null ? [] : (s.rows.get(id) ?? [])));
        const prefixLens = Int32Array.from(rows, (row) => row.length);
        const seqLens = Int32Array.from(rows, (row, i) => row.length + (grows[i] as number));
        const lastLoc = Int32Array.from(rows, (row) => (row.length === 0 ? -1 : (row[row.length - 1] as number)));
        const out = s.allocator.allocExtend({ prefixLens, seqLens, lastLoc });
        for (const a of [prefixLens, seqLens, lastLoc]) a.fill(-7);
        return out;
      });
      expect(results[0] === null).toBe(needPages > free);
      if (results[0] === null) return;
      for (let i = 0; i < newIds.length; i++) {
        if (newIds[i] === -1) {
          newIds[i] = m.nextId++;
          m.live.push(newIds[i] as number);
        }
      }
      subjects.forEach((s, j) => {
        const out = results[j] as Int32Array;
        let at = 0;
        newIds.forEach((id, i) => {
          appendToRow(s, m, id, out, at, grows[i] as number);
          at += grows[i] as number;
        });
        expect(at).toBe(out.length);
      });
      return;
    }
    case 'decode': {
      const ids: (number | null)[] = [];
      for (const p of c.picks) {
        const id = p === null ? null : pick(p);
        if (id === null || !ids.includes(id)) ids.push(id);
      }
      const lengthOf = (id: number | null): number => (id === null ? 0 : ((subjects[0] as Subject).rows.get(id) ?? []).length);
      const needPages = ids.filter((id) => lengthOf(id) % ps === 0).length;
      const free = freePageCount(subjects[0] as Subject, m);
      const results = callAll(subjects, (s) => {
        const rows = ids.map((id) => (id === null ? [] : (s.rows.get(id) ?? [])));
        const seqLens = Int32Array.from(rows, (row) => row.length + 1);
        const lastLoc = Int32Array.from(rows, (row) => (row.length === 0 ? -1 : (row[row.length - 1] as number)));
        const out = s.allocator.allocDecode({ seqLens, lastLoc });
        seqLens.fill(-7);
        lastLoc.fill(-7);
        return out;
      });
      expect(results[0] === null).toBe(needPages > free);
      if (results[0] === null) return;
      const finalIds = ids.map((id) => {
        if (id !== null) return id;
        const fresh = m.nextId++;
        m.live.push(fresh);
        return fresh;
      });
      subjects.forEach((s, j) => finalIds.forEach((id, i) => appendToRow(s, m, id, results[j] as Int32Array, i, 1)));
      return;
    }
    case 'freeRow': {
      const id = pick(c.pick);
      if (id === null) return;
      for (const s of subjects) {
        const indices = Int32Array.from(s.rows.get(id) ?? []);
        if (indices.length > 0) s.allocator.free(indices);
        indices.fill(-7);
        releaseRowTail(s, m, id, 0);
        s.rows.delete(id);
      }
      m.live = m.live.filter((x) => x !== id);
      return;
    }
    case 'freeSegments': {
      // Give back the row from a page-aligned position on, as page-aligned segments (some empty).
      const id = pick(c.pick);
      if (id === null) return;
      const length = ((subjects[0] as Subject).rows.get(id) ?? []).length;
      const start = Math.min(c.keepBlocks * ps, Math.floor(length / ps) * ps);
      const bounds = Array.from(new Set([start, ...c.cuts.map((k) => Math.min(length, start + k * ps)), length])).sort((x, y) => x - y);
      for (const s of subjects) {
        const row = s.rows.get(id) ?? [];
        const segments: FreeSegment[] = [];
        for (let i = 0; i + 1 < bounds.length; i++) segments.push({ indices: Int32Array.from(row.slice(bounds[i], bounds[i + 1])), startPos: bounds[i] as number });
        segments.push({ indices: new Int32Array(0), startPos: length });
        s.allocator.freeSegments(segments);
        for (const seg of segments) (seg.indices as Int32Array).fill(-7);
        releaseRowTail(s, m, id, start);
      }
      if (start === 0) {
        for (const s of subjects) s.rows.delete(id);
        m.live = m.live.filter((x) => x !== id);
      }
      return;
    }
    case 'groupBegin':
      if (m.groupOpen) return;
      for (const s of subjects) s.allocator.freeGroupBegin();
      m.groupOpen = true;
      return;
    case 'groupEnd':
      if (!m.groupOpen) return;
      for (const s of subjects) {
        s.allocator.freeGroupEnd();
        s.owner = s.owner.map((o) => (o === kOwnerQueued ? kOwnerFree : o));
      }
      m.groupOpen = false;
      return;
    case 'backup':
      if (m.groupOpen) return;
      for (const s of subjects) s.saved = { state: s.allocator.backupState(), rows: copyRows(s.rows), owner: s.owner.slice() };
      m.saved = m.live.slice();
      return;
    case 'restore':
      if (m.groupOpen || m.saved === null) return;
      for (const s of subjects) {
        const saved = s.saved as NonNullable<Subject['saved']>;
        s.allocator.restoreState(saved.state);
        s.rows = copyRows(saved.rows);
        s.owner = saved.owner.slice();
      }
      m.live = m.saved.slice();
      return;
    case 'clear':
      for (const s of subjects) {
        s.allocator.clear();
        s.rows = new Map();
        s.owner.fill(kOwnerFree, 1);
      }
      m.live = [];
      m.groupOpen = false;
      return;
    case 'reject': {
      const live = pick(c.kind);
      const rowOf = (s: Subject): number[] => (live === null ? [] : (s.rows.get(live) ?? []));
      switch (c.kind) {
        case 0:
          if (ps >= 2) expectAllRejected(subjects, m, (s) => s.allocator.alloc(ps + 1));
          return;
        case 1:
          expectAllRejected(subjects, m, (s) => s.allocator.alloc(-ps));
          return;
        case 2:
          expectAllRejected(subjects, m, (s) => s.allocator.allocExtend({ prefixLens: [rowOf(s).length + 1], seqLens: [rowOf(s).length], lastLoc: [-1] }));
          return;
        case 3:
          expectAllRejected(subjects, m, (s) => s.allocator.allocDecode({ seqLens: [1, 1], lastLoc: [-1] }));
          return;
        case 4:
          if (m.groupOpen) expectAllRejected(subjects, m, (s) => s.allocator.freeGroupBegin());
          else expectAllRejected(subjects, m, (s) => s.allocator.freeGroupEnd());
          return;
        case 5:
          // Two segments meeting inside a page (the second start unaligned).
          if (ps >= 2 && live !== null && rowOf(subjects[0] as Subject).length >= 2) {
            expectAllRejected(subjects, m, (s) => s.allocator.freeSegments([{ indices: rowOf(s).slice(0, 1), startPos: 0 }, { indices: rowOf(s).slice(1), startPos: 1 }]));
          }
          return;
        case 6:
          if (m.checks) {
            expectAllRejected(subjects, m, (s) => {
              const page = Array.from(s.owner).findIndex((o, p) => p >= 1 && o === kOwnerFree);
              s.allocator.free([page > 0 ? page * ps : 0]);
            });
          }
          return;
        default:
          // A lastLoc one slot before the right one: (lastLoc + 1) % ps no longer fits the prefix (needs ps ≥ 2).
          if (m.checks && ps >= 2 && live !== null && rowOf(subjects[0] as Subject).length > 0) {
            expectAllRejected(subjects, m, (s) => s.allocator.allocExtend({ prefixLens: [rowOf(s).length], seqLens: [rowOf(s).length + 1], lastLoc: [(rowOf(s).at(-1) as number) - 1] }));
          }
          return;
      }
    }
  }
}

describe('alternatives:differential', () => {
  it('agrees with the reference on availableSize after every op and on null vs non-null; outputs unique and unheld', () => {
    fc.assert(
      fc.property(kGeometry, fc.array(kCommand, { maxLength: kCommandsPerRunMax, size: 'max' }), (g, commands) => {
        const ps = g.kernelPageSize * g.dcpSize;
        const config: AllocatorConfig = { sizeTokens: g.pages * ps, kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: g.needSort, checks: g.checks };
        const providers: AllocatorProvider[] = [{ name: 'reference', create: createAllocator }, bitmapProvider, fifoProvider];
        const subjects: Subject[] = providers.map((p) => ({ name: p.name, allocator: p.create(config), rows: new Map(), owner: new Int32Array(g.pages + 1).fill(kOwnerFree), saved: null }));
        const m: Logical = { ps, numPages: g.pages, live: [], nextId: 0, groupOpen: false, saved: null, checks: g.checks };
        for (const c of commands) {
          runCommand(subjects, m, c);
          const expectAvailable = freePageCount(subjects[0] as Subject, m) * ps;
          for (const s of subjects) {
            expect(freePageCount(s, m) * ps, `${s.name} ledger after ${JSON.stringify(c)}`).toBe(expectAvailable);
            expect(s.allocator.availableSize(), `${s.name} availableSize after ${JSON.stringify(c)}`).toBe(expectAvailable);
            if (s.name !== 'reference') verify(s.allocator);
          }
        }
        // Drain: close the group, give every row back, and the whole pool allocates again, each page once.
        runCommand(subjects, m, { op: 'groupEnd' });
        while (m.live.length > 0) runCommand(subjects, m, { op: 'freeRow', pick: 0 });
        for (const s of subjects) {
          expect(s.allocator.availableSize()).toBe(g.pages * ps);
          const all = pagesOf(s.allocator.alloc(g.pages * ps), ps).sort((x, y) => x - y);
          expect(all).toEqual(Array.from({ length: g.pages }, (_, i) => i + 1));
        }
      }),
      { numRuns: kDifferentialRuns },
    );
  });
});
