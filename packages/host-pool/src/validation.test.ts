import { ArgumentError, SlotRangeError } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { HostDoubleFreeError } from './errors.js';
import { expectNullUnchanged, expectRejected } from './test-support/expect-rejected.js';
import { kLargePoolTokens } from './test-support/large-pool.js';
import { ProbedHostSlotPool } from './test-support/probed-pool.js';

// The bad-input rules of the host pool contract, one rule at a time (STYLE rule 18): a passing
// control, the rule broken alone, both sides of each boundary. Every bad case asserts the error
// class, that the message names the value, and that the free list, the pending chunks, the
// available size and the used slots are the same before and after.
//
// The pool: page 2, 8 requested tokens → 5 pages = 10 slots. Slots 0 … 3 held, 4, 5 allocated
// and given back (pending), 6 … 9 never handed out. Free list [6 … 9], pending [[4, 5]].
function used(checks: boolean): ProbedHostSlotPool {
  const pool = new ProbedHostSlotPool({ sizeTokens: 8, pageSize: 2, dcpSize: 1, checks });
  pool.alloc(4);
  pool.alloc(2);
  pool.free([4, 5]);
  return pool;
}

const list = (slots: Int32Array | null): number[] => Array.from(slots ?? []);
const kPageMessage = 'The requested size should be a multiple of the page size.';

describe('host-pool:validation,always', () => {
  describe.each([true, false])('checks %s', (checks) => {
    describe('alloc', () => {
      it('control: alloc(4), alloc(2) and alloc(0) pass', () => {
        const pool = used(checks);
        expect(list(pool.alloc(4))).toEqual([6, 7, 8, 9]);
        expect(list(pool.alloc(2))).toEqual([4, 5]);
        expect(list(pool.alloc(0))).toEqual([]);
      });

      it.each([-2, -1])('refuses the negative size %i (0 passes)', (n) => {
        const pool = used(checks);
        expectRejected(pool, () => pool.alloc(n), ArgumentError, `alloc size ${n} is not a non-negative integer`);
      });

      it.each([2.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses the non-integer size %s', (n) => {
        const pool = used(checks);
        expectRejected(pool, () => pool.alloc(n), ArgumentError, `alloc size ${n} is not a non-negative integer`);
      });

      it.each([1, 3, 5])('refuses %i, not a multiple of page size 2 (2 and 4 pass)', (n) => {
        const pool = used(checks);
        expectRejected(pool, () => pool.alloc(n), ArgumentError, `${kPageMessage} Got alloc size ${n}, page size 2.`);
      });

      it('widened page 8 (kernel 2 × DCP 4): 8 and 16 pass; 4 (2^(k−1)) and 2 (a kernel page) are refused', () => {
        const pool = new ProbedHostSlotPool({ sizeTokens: 32, pageSize: 8, dcpSize: 4, checks });
        for (const n of [4, 2]) expectRejected(pool, () => pool.alloc(n), ArgumentError, `${kPageMessage} Got alloc size ${n}, page size 8.`);
        expect(list(pool.alloc(8))).toHaveLength(8);
        expect(list(pool.alloc(16))).toHaveLength(16);
      });

      it('available 6: alloc(6) passes (merging), alloc(8) returns null and changes nothing (no merge)', () => {
        const pool = used(checks);
        expectNullUnchanged(pool, () => pool.alloc(8));
        expect(list(pool.alloc(6))).toEqual([6, 7, 8, 9, 4, 5]);
        expectNullUnchanged(pool, () => pool.alloc(2));
      });
    });

    describe('physicalRows', () => {
      // Kernel page 2 × DCP 4 = widened page 8; 40 logical slots.
      const dcpPool = (): ProbedHostSlotPool => new ProbedHostSlotPool({ sizeTokens: 32, pageSize: 8, dcpSize: 4, checks });
      const kPage1 = [8, 9, 10, 11, 12, 13, 14, 15];

      it('control: a whole widened page on ranks 0 and 3 (the last)', () => {
        const pool = dcpPool();
        expect(list(pool.physicalRows(kPage1, 0))).toEqual([2, 3]);
        expect(list(pool.physicalRows(kPage1, 3))).toEqual([2, 3]);
        expect(list(pool.physicalRows([], 1))).toEqual([]);
      });

      it.each([4, -1, 1.5])('refuses the rank %s (outside [0, 4))', (rank) => {
        const pool = dcpPool();
        expectRejected(pool, () => pool.physicalRows(kPage1, rank), ArgumentError, `rank ${rank} is outside [0, 4)`);
      });

      it('refuses 7 and 9 slots (4 and 8 pass): the count must be a multiple of dcp_size', () => {
        const pool = dcpPool();
        expect(list(pool.physicalRows(kPage1.slice(0, 4), 0))).toEqual([2]);
        for (const slots of [kPage1.slice(0, 7), [...kPage1, 16]]) {
          expectRejected(pool, () => pool.physicalRows(slots, 0), ArgumentError, [
            'HiCache DCP translation expects runs of whole widened pages',
            `got ${slots.length} logical slots`,
            'dcp_size=4',
          ]);
        }
      });

      it('refuses 4 slots that are not one of each residue class', () => {
        const pool = dcpPool();
        expectRejected(pool, () => pool.physicalRows([8, 9, 10, 12], 0), ArgumentError, ['got 4 logical slots -> 2 owned rows on rank 0']);
        expectRejected(pool, () => pool.physicalRows([8, 9, 10, 12], 3), ArgumentError, ['got 4 logical slots -> 0 owned rows on rank 3']);
      });

      it('refuses slots outside [0, 40): 39 passes, 40 and −1 are refused', () => {
        const pool = dcpPool();
        expect(list(pool.physicalRows([36, 37, 38, 39], 3))).toEqual([9]);
        expectRejected(pool, () => pool.physicalRows([37, 38, 39, 40], 0), SlotRangeError, 'Slots outside [0, 40): [40].');
        expectRejected(pool, () => pool.physicalRows([-1, 0, 1, 2], 0), SlotRangeError, 'Slots outside [0, 40): [-1].');
      });
    });
  });
});

describe('host-pool:validation,checks', () => {
  it('control: every held slot goes back, in any order and any grouping', () => {
    const pool = used(true);
    expect(pool.free([3, 0])).toBe(2);
    expect(pool.free([1])).toBe(1);
    expect(pool.free([2])).toBe(1);
    expect(pool.availableSize()).toBe(10);
    pool.verifyInvariants();
  });

  it('refuses a slot outside [0, 10): 9 (held) passes, 10 and −1 are refused', () => {
    const pool = used(true);
    pool.alloc(4); // 6 … 9 held
    expectRejected(pool, () => pool.free([0, 10]), SlotRangeError, 'Slots outside [0, 10): [10].');
    expectRejected(pool, () => pool.free([-1, 0]), SlotRangeError, 'Slots outside [0, 10): [-1].');
    expectRejected(pool, () => pool.free([0.5]), SlotRangeError, 'Slots outside [0, 10): [0.5].');
    expect(pool.free([9])).toBe(1);
  });

  it('refuses a slot never handed out (6) beside held ones (3 passes alone)', () => {
    const pool = used(true);
    expectRejected(pool, () => pool.free([3, 6]), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [6].');
    expect(pool.free([3])).toBe(1);
  });

  it('refuses a slot given back and still pending (4), and one given back and merged', () => {
    const pool = used(true);
    expectRejected(pool, () => pool.free([4]), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [4].');
    pool.alloc(6); // merges [4, 5] and hands out 6 … 9, 4, 5
    pool.free([6, 7]);
    pool.alloc(2); // 6, 7 again
    pool.free([6, 7]);
    expectRejected(pool, () => pool.free([7]), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [7].');
  });

  it('a held slot named once passes; named twice in one call it is freed twice', () => {
    const pool = used(true);
    expectRejected(pool, () => pool.free([2, 2]), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [2].');
    expectRejected(pool, () => pool.free([6, 6]), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [6, 6].');
    expect(pool.free([2])).toBe(1);
  });
});

// The contract's bad frees (H13) as the validator sends them: Int32Array batches, which skip the
// plain-array slot check and reach the run scan and the flag flips directly, in a small pool and
// in a large one. Each is refused beside held slots and
// frees none of them: the held slots still go back afterwards. The engine's bookkeeping (torch
// indexing of slot_used) accepts the first two: a repeated held slot passes its check and is
// counted twice, and a negative slot wraps to slot size + s.
describe.each([
  ['small', 8],
  ['large', kLargePoolTokens],
])('host-pool:validation,contract-frees %s pool', (_where, sizeTokens) => {
  function held(): { pool: ProbedHostSlotPool; slots: number[] } {
    const pool = new ProbedHostSlotPool({ sizeTokens, pageSize: 2, dcpSize: 1, checks: true });
    return { pool, slots: list(pool.alloc(6)) };
  }

  it('control: the six held slots go back as one Int32Array', () => {
    const { pool, slots } = held();
    expect(pool.free(Int32Array.from(slots))).toBe(6);
  });

  // Each case: the call from the held slots and the pool's size, and the one bad value it names.
  it.each([
    ['a held slot named twice', (s: number[]) => [s[0], s[1], s[0]], HostDoubleFreeError],
    ['a held slot named twice, last', (s: number[]) => [...s, s[5]], HostDoubleFreeError],
    ['−1 (the last slot under negative indexing)', (s: number[]) => [s[0], -1], SlotRangeError],
    ['2 − size (held slot 2 under negative indexing)', (s: number[], size: number) => [s[0], 2 - size], SlotRangeError],
    ['size (one past the last slot)', (s: number[], size: number) => [s[0], size], SlotRangeError],
  ] as const)('refuses %s beside held slots, and frees none of them', (_what, call, errorClass) => {
    const { pool, slots } = held();
    const indices = Int32Array.from(call(slots, pool.size) as number[]);
    const bad = indices[indices.length - 1] as number;
    const message = errorClass === SlotRangeError ? `Slots outside [0, ${pool.size}): [${bad}].` : `Double-free detected: slots not currently allocated: [${bad}].`;
    expectRejected(pool, () => pool.free(indices), errorClass, message);
    expect(pool.free(Int32Array.from(slots))).toBe(6);
    pool.verifyInvariants();
  });
});
