import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DoubleFreeError, KvfuzzError, SlotRangeError } from './errors.js';
import { expectRefusedExactly, expectStates, probed } from './test-support/serial-checks.js';
import { TokenAllocator } from './token-allocator.js';
import type { FreeSegment } from './types.js';

const ProbedTokenAllocator = probed(TokenAllocator, false);

/** The token allocator with its segment free's run thresholds lowered to sizes the pools here reach. */
function withRuns(runMin: number, runBlock: number): typeof ProbedTokenAllocator {
  return class extends (ProbedTokenAllocator as unknown as typeof TokenAllocator) {
    protected override readonly runMin: number = runMin;
    protected override readonly runBlock: number = runBlock;
  } as unknown as typeof ProbedTokenAllocator;
}

const kSizeMax = 40;

type Op =
  | { readonly kind: 'alloc'; readonly n: number }
  /** freeSegments of the consecutive pages [from, from + len), cut at `cuts` (row positions). */
  | { readonly kind: 'range'; readonly from: number; readonly len: number; readonly cuts: readonly number[] }
  /** freeSegments of the `which`-th row an alloc returned, in its order, its pages `dup` named again at the end. */
  | { readonly kind: 'row'; readonly which: number; readonly cuts: readonly number[]; readonly dup: readonly number[] }
  /** A plain free of [from, from + len): breaks the runs the segment free could take whole. */
  | { readonly kind: 'free'; readonly from: number; readonly len: number };

const kCuts = fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 3 });
const kOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('alloc' as const), n: fc.integer({ min: 1, max: 16 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('range' as const), from: fc.integer({ min: -1, max: kSizeMax + 1 }), len: fc.integer({ min: 1, max: 24 }), cuts: kCuts }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('row' as const),
      which: fc.nat(),
      cuts: kCuts,
      dup: fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 2 }) }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('free' as const), from: fc.integer({ min: 1, max: kSizeMax }), len: fc.integer({ min: 1, max: 4 }) }) },
);

/** `row` cut at the positions `cuts` (sorted, inside the row) into segments starting at their row position. */
function segmentsOf(row: readonly number[], cuts: readonly number[]): FreeSegment[] {
  const at = [...new Set(cuts.filter((c) => c < row.length))].sort((a, b) => a - b);
  const bounds = [0, ...at, row.length];
  const segments: FreeSegment[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    segments.push({ indices: Int32Array.from(row.slice(bounds[i], bounds[i + 1])), startPos: bounds[i] as number });
  }
  return segments;
}

/**
 * The token allocator's segment free takes a run of consecutive pages that were numbered for
 * consecutive places with one memcmp and one fill. Against a held-page set, with the run
 * thresholds drawn small: a call is refused exactly when a page is not held, named twice or
 * outside the pool, a refused call changes nothing, and every page's state agrees after each op.
 */
describe('allocator-core:token,segment-runs', () => {
  test.prop(
    [fc.integer({ min: 1, max: kSizeMax }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }), fc.array(kOp, { maxLength: 60, size: 'max' })],
    { numRuns: 300 },
  )('agrees with a held-page set on runs freed whole, in pieces, twice, or over free pages', (sizeTokens, runMin, runBlock, ops) => {
    const allocator = new (withRuns(runMin, runBlock))({ sizeTokens, needSort: false, checks: true });
    const held = new Set<number>();
    const rows: number[][] = [];
    for (const op of ops) {
      let expectRefusal: (new (...args: never[]) => KvfuzzError) | null = null;
      const refuseUnless = (pages: readonly number[]): void => {
        if (pages.some((p) => p < 0 || p > sizeTokens)) expectRefusal = SlotRangeError;
        else if (pages.some((p) => !held.has(p)) || new Set(pages).size !== pages.length) expectRefusal = DoubleFreeError;
      };
      const run = (): void => {
        if (op.kind === 'alloc') {
          const out = allocator.alloc(op.n);
          if (out === null) return;
          for (const p of out) {
            expect(held.has(p) || p === 0).toBe(false);
            held.add(p);
          }
          rows.push(Array.from(out));
          return;
        }
        if (op.kind === 'free') {
          const pages = Array.from({ length: op.len }, (_, i) => op.from + i);
          refuseUnless(pages);
          allocator.free(Int32Array.from(pages));
          for (const p of pages) held.delete(p);
          return;
        }
        const row = op.kind === 'range' ? Array.from({ length: op.len }, (_, i) => op.from + i) : rows.length === 0 ? [] : [...(rows[op.which % rows.length] as number[])];
        const segments = segmentsOf(row, op.cuts);
        if (op.kind === 'row' && op.dup.length > 0 && row.length > 0) {
          const again = op.dup.map((d) => row[d % row.length] as number);
          segments.push({ indices: Int32Array.from(again), startPos: row.length + 1 });
          row.push(...again);
        }
        refuseUnless(row);
        allocator.freeSegments(segments);
        for (const p of row) held.delete(p);
      };
      expectRefusedExactly(allocator, run, () => expectRefusal);
      expectStates(allocator.states(), sizeTokens, held, new Set());
      allocator.verifyInvariants();
      expect(allocator.availableSize()).toBe(sizeTokens - held.size);
    }
  });

  it('refuses a run of one page over page 0 (reserved: its tag reads below every serial)', () => {
    const allocator = new (withRuns(1, 1))({ sizeTokens: 8, needSort: false, checks: true });
    allocator.alloc(8);
    const before = JSON.stringify(allocator.inspect());
    expect(() => allocator.freeSegments(segmentsOf([0], []))).toThrow(/pages not currently allocated: \[0\]/);
    expect(JSON.stringify(allocator.inspect())).toBe(before);
    allocator.freeSegments(segmentsOf([1, 2], []));
    expect(allocator.availableSize()).toBe(2);
  });

  it('takes a 4096-page row freed in 3 segments as runs, and refuses it whole the second time, changing nothing', () => {
    const allocator = new (withRuns(512, 1024))({ sizeTokens: 4096 + 16, needSort: false, checks: true });
    allocator.alloc(16);
    const row = allocator.alloc(4096) as Int32Array;
    const segments = segmentsOf(Array.from(row), [1000, 3000]);
    allocator.freeSegments(segments);
    expect(Array.from(allocator.inspect().free.subarray(-4096))).toEqual(Array.from(row));
    const before = JSON.stringify(allocator.inspect());
    expect(() => allocator.freeSegments(segments)).toThrow(DoubleFreeError);
    expect(JSON.stringify(allocator.inspect())).toBe(before);
    allocator.verifyInvariants();
  });
});
