import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { TokenAllocator } from './token-allocator.js';

/** Starts its call serials again every few dozen, so the restart runs in every case. */
class LowLimitTokenAllocator extends TokenAllocator {
  protected override readonly serialLimit = 40;
}

const kPages = 16;
type Op = { readonly kind: 'alloc'; readonly n: number } | { readonly kind: 'free'; readonly picks: readonly number[] };
const kOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('alloc' as const), n: fc.integer({ min: 0, max: 8 }) }),
  // Picks index the held pages, so a free names held slots, often one twice (the dedupe's case).
  fc.record({ kind: fc.constant('free' as const), picks: fc.array(fc.nat(), { maxLength: 10, size: 'max' }) }),
);

/**
 * Checks off, the token free dedupes by call serials (see `TokenAllocator.free`): against a plain
 * FIFO list, each free appends its distinct pages in first-appearance order, also across the
 * restart of the serials.
 */
describe('allocator-core:token,unchecked-free', () => {
  test.prop([fc.boolean(), fc.array(kOp, { minLength: 30, maxLength: 120, size: 'max' })], { numRuns: 500 })('matches a FIFO list that appends each freed page once', (lowLimit, ops) => {
    const config = { sizeTokens: kPages, checks: false };
    const allocator = lowLimit ? new LowLimitTokenAllocator(config) : new TokenAllocator(config);
    let free = Array.from({ length: kPages }, (_, i) => i + 1);
    let held: number[] = [];
    for (const op of ops) {
      if (op.kind === 'alloc') {
        const got = allocator.alloc(op.n);
        if (op.n > free.length) {
          expect(got).toBeNull();
          continue;
        }
        expect(Array.from(got ?? [])).toEqual(free.slice(0, op.n));
        held.push(...free.slice(0, op.n));
        free = free.slice(op.n);
      } else {
        if (held.length === 0) continue;
        const slots = op.picks.map((k) => held[k % held.length] as number);
        allocator.free(Int32Array.from(slots));
        const distinct = [...new Set(slots)];
        free.push(...distinct);
        held = held.filter((page) => !distinct.includes(page));
      }
      expect(Array.from(allocator.inspect().free)).toEqual(free);
    }
  });
});
