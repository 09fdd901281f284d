import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { HostDoubleFreeError } from './errors.js';
import { HostSlotPool } from './host-slot-pool.js';
import { kLargePoolTokens } from './test-support/large-pool.js';
import { naiveRunStarts } from './test-support/naive-run-starts.js';
import { ProbedHostSlotPool } from './test-support/probed-pool.js';
import type { HostSlotPoolInspection } from './types.js';

// Random geometry, random traffic of valid calls, checked against a model kept outside the pool:
// the set of held slots. Outputs are unique, never held, page multiples; availableSize is exact;
// null comes exactly when the request exceeds what is available; the slots handed out are the
// ones the engine's rule picks from the free list (then the pending chunks, when short); the
// pool's invariants hold after every call; giving everything back returns the pool to full; with
// checks on, a second free of the same slots is refused and changes nothing.
const kGeometry = fc
  .record({
    kernelPageSize: fc.integer({ min: 1, max: 4 }),
    dcpSize: fc.constantFrom(1, 2, 4),
    pagesRequested: fc.integer({ min: 0, max: 10 }),
    extraTokens: fc.nat(15),
    checks: fc.boolean(),
  })
  .map(({ kernelPageSize, dcpSize, pagesRequested, extraTokens, checks }) => {
    const pageSize = kernelPageSize * dcpSize;
    return { sizeTokens: Math.max(1, pagesRequested * pageSize + (extraTokens % pageSize)), pageSize, dcpSize, checks };
  });

// alloc: `pages` pages. free: part of a held block, [from, to) of it by fractions, so frees split
// pages and the free list loses its page structure too.
// again: with checks on, the freed part is freed a second time, which must be refused.
const kOp = fc.oneof(
  fc.record({ kind: fc.constant('alloc' as const), pages: fc.nat(4) }),
  fc.record({ kind: fc.constant('free' as const), pick: fc.nat(), from: fc.nat(8), to: fc.nat(8), again: fc.boolean() }),
);
type Op = { kind: 'alloc'; pages: number } | { kind: 'free'; pick: number; from: number; to: number; again: boolean };

/** The engine's choice, computed from a copy of the lists: the first whole-page run of n consecutive ids, else the first n. */
function expectedTake(lists: HostSlotPoolInspection, n: number, pageSize: number): number[] {
  const free = Array.from(lists.free);
  const list = n > free.length ? [...free, ...lists.pending.flatMap((chunk) => Array.from(chunk))] : free;
  for (let start = 0; start + n <= list.length; start += pageSize) {
    const first = list[start] as number;
    if (first % pageSize !== 0) continue;
    let run = true;
    for (let i = 1; i < n && run; i++) run = list[start + i] === first + i;
    if (run) return list.slice(start, start + n);
  }
  return list.slice(0, n);
}

/** Runs the traffic against the model; an alloc asks `pages × scale` pages. */
function checkTraffic(config: { sizeTokens: number; pageSize: number; dcpSize: number; checks: boolean }, ops: readonly Op[], scale: number): void {
  const pool = new HostSlotPool(config);
  const ps = config.pageSize;
  const held = new Set<number>();
  const blocks: number[][] = [];
  for (const op of ops) {
    if (op.kind === 'alloc') {
      const n = op.pages * scale * ps;
      const lists = pool.inspect();
      const got = pool.alloc(n);
      if (n > pool.size - held.size) {
        expect(got).toBeNull();
        expect(pool.inspect()).toEqual(lists);
      } else {
        const slots = Array.from(got ?? []);
        expect(slots).toHaveLength(n);
        expect(slots.length % ps).toBe(0);
        expect(new Set(slots).size).toBe(n);
        for (const slot of slots) {
          expect(slot).toBeGreaterThanOrEqual(0);
          expect(slot).toBeLessThan(pool.size);
          expect(held.has(slot)).toBe(false);
          held.add(slot);
        }
        expect(slots).toEqual(expectedTake(lists, n, ps));
        if (n > 0) blocks.push(slots);
      }
    } else {
      if (blocks.length === 0) continue;
      const index = op.pick % blocks.length;
      const block = blocks[index] as number[];
      const a = Math.floor((op.from * block.length) / 8);
      const b = Math.floor((op.to * block.length) / 8);
      const [from, to] = a <= b ? [a, b] : [b, a];
      const part = block.slice(from, to);
      const freeBefore = pool.inspect().free;
      expect(pool.free(part)).toBe(part.length);
      expect(pool.inspect().free).toEqual(freeBefore);
      for (const slot of part) held.delete(slot);
      const rest = [...block.slice(0, from), ...block.slice(to)];
      if (rest.length > 0) blocks[index] = rest;
      else blocks.splice(index, 1);
      if (op.again && config.checks && part.length > 0) {
        // The same slots again (with one still held, if any): refused whole, nothing changed.
        const lists = pool.inspect();
        const again = Int32Array.from([...part, ...(rest.length > 0 ? [rest[0] as number] : [])]);
        expect(() => pool.free(again)).toThrow(HostDoubleFreeError);
        expect(pool.inspect()).toEqual(lists);
      }
    }
    expect(pool.availableSize()).toBe(pool.size - held.size);
    pool.verifyInvariants();
  }
  for (const block of blocks) pool.free(Int32Array.from(block));
  expect(pool.availableSize()).toBe(pool.size);
  pool.verifyInvariants();
  const all = Array.from(pool.alloc(pool.size) ?? []).sort((x, y) => x - y);
  expect(all).toEqual(Array.from({ length: pool.size }, (_, slot) => slot));
}

describe('host-pool:slot-pool,properties', () => {
  test.prop([kGeometry, fc.array(kOp, { maxLength: 40, size: 'max' })])('alloc/free traffic keeps the model and the invariants', (config, ops) => {
    checkTraffic(config, ops, 1);
  });

  // Pools of the size the bench times run the same code: the same traffic, in hand-outs of
  // hundreds of pages.
  const kLargeGeometry = fc
    .record({ pageSize: fc.integer({ min: 1, max: 4 }), extraTokens: fc.nat(300), checks: fc.boolean() })
    .map(({ pageSize, extraTokens, checks }) => ({ sizeTokens: kLargePoolTokens + extraTokens, pageSize, dcpSize: 1, checks }));
  test.prop([kLargeGeometry, fc.array(kOp, { maxLength: 30, size: 'max' })], { numRuns: 40 })(
    'alloc/free traffic on a large pool keeps the model and the invariants',
    (config, ops) => {
      checkTraffic(config, ops, 150);
    },
  );
});

// The checks flip flags run by run as the pool's scan noted them, so the scan must find exactly the
// runs a naive scan finds, in a small pool and in one of the size the bench times: checked against
// every alloc (a found run or a first-fit hand-out) and every free (parts of held blocks, cut into
// pieces given back in reverse order, so frees hold runs of every length).
describe.each([
  ['small', 60],
  ['large', kLargePoolTokens],
])('host-pool:slot-pool,run-scan %s pool', (_where, sizeTokens) => {
  const kScanOp = fc.oneof(
    fc.record({ kind: fc.constant('alloc' as const), sixteenths: fc.integer({ min: 1, max: 16 }) }),
    fc.record({ kind: fc.constant('free' as const), pick: fc.nat(), from: fc.nat(8), to: fc.nat(8), piece: fc.integer({ min: 1, max: 40 }) }),
  );

  test.prop([fc.integer({ min: 1, max: 4 }), fc.array(kScanOp, { maxLength: 30, size: 'max' })], { numRuns: 40 })(
    'every checked alloc and free notes the runs the naive scan finds',
    (pageSize, ops) => {
      const pool = new ProbedHostSlotPool({ sizeTokens, pageSize, dcpSize: 1, checks: true });
      const blocks: number[][] = [];
      for (const op of ops) {
        let call: Int32Array;
        if (op.kind === 'alloc') {
          const pages = Math.floor((op.sixteenths * pool.availableSize()) / (16 * pageSize));
          if (pages === 0) continue;
          call = pool.alloc(pages * pageSize) as Int32Array;
          blocks.push(Array.from(call));
        } else {
          if (blocks.length === 0) continue;
          const index = op.pick % blocks.length;
          const block = blocks[index] as number[];
          const [a, b] = [Math.floor((op.from * block.length) / 8), Math.floor((op.to * block.length) / 8)];
          const [from, to] = a <= b ? [a, b] : [b, a];
          if (from === to) continue;
          const pieces: number[][] = [];
          for (let i = from; i < to; i += op.piece) pieces.push(block.slice(i, Math.min(to, i + op.piece)));
          call = Int32Array.from(pieces.reverse().flat());
          pool.free(call);
          const rest = [...block.slice(0, from), ...block.slice(to)];
          if (rest.length > 0) blocks[index] = rest;
          else blocks.splice(index, 1);
        }
        const noted = pool.notedRuns() as { starts: number[]; firsts: number[] };
        const expected = naiveRunStarts(call);
        expect(noted.starts).toEqual(expected);
        expect(noted.firsts).toEqual(expected.map((i) => call[i]));
      }
      pool.verifyInvariants();
    },
  );
});
