import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { kLargePoolTokens } from '../test-support/large-pool.js';
import { RunNotes } from './run-notes.js';
import { UsedBits } from './used-bits.js';

// The bits against a plain boolean per slot. Sizes straddle word ends (31, 32, 33, 64, 95) so that
// ranges start and end inside a word, on its edges, and cover whole words in the middle.
const kSize = fc.constantFrom(1, 31, 32, 33, 64, 95, 130);

const kRangeOp = fc.record({
  set: fc.boolean(),
  from: fc.nat(),
  length: fc.nat(),
});

function flagged(bits: UsedBits): boolean[] {
  return Array.from({ length: bits.size }, (_, slot) => bits.has(slot));
}

// Slots [first, first + n) (n ≥ 1) as a single run: flipped whole (true) or not at all (false).
const kOneRun = Int32Array.of(0);
const setRange = (bits: UsedBits, first: number, n: number): boolean => bits.setRuns(Int32Array.of(first), kOneRun, 1, n) === n;
const clearRange = (bits: UsedBits, first: number, n: number): boolean => bits.clearRuns(Int32Array.of(first), kOneRun, 1, n) === n;

describe('host-pool:used-bits', () => {
  test.prop([kSize, fc.array(kRangeOp, { maxLength: 40, size: 'max' })])('range ops change all or nothing, exactly as a flag per slot', (size, ops) => {
    const bits = new UsedBits(size);
    const model: boolean[] = new Array<boolean>(size).fill(false);
    for (const { set, from, length } of ops) {
      const first = from % size;
      const n = 1 + (length % (size - first));
      const range = model.slice(first, first + n);
      const allowed = set ? range.every((v) => !v) : range.every((v) => v);
      const done = set ? setRange(bits, first, n) : clearRange(bits, first, n);
      expect(done).toBe(allowed);
      if (allowed) model.fill(set, first, first + n);
      expect(flagged(bits)).toEqual(model);
    }
    // Bits past the pool's last slot are never set.
    for (let slot = size; slot < 32 * bits.words.length; slot++) expect(((bits.words[slot >>> 5] as number) >>> (slot & 31)) & 1).toBe(0);
  });

  // A large pool's flags: long runs, whose middle words are checked and flipped whole.
  test.prop([fc.constantFrom(kLargePoolTokens, kLargePoolTokens + 45), fc.array(kRangeOp, { maxLength: 30, size: 'max' })], { numRuns: 60 })(
    'long runs in a large pool change all or nothing, exactly as a flag per slot',
    (size, ops) => {
      const bits = new UsedBits(size);
      const model = new Uint8Array(size);
      for (const { set, from, length } of ops) {
        const first = from % size;
        const n = 1 + (length % (size - first));
        const range = model.subarray(first, first + n);
        const allowed = set ? range.every((v) => v === 0) : range.every((v) => v === 1);
        const done = set ? setRange(bits, first, n) : clearRange(bits, first, n);
        expect(done).toBe(allowed);
        if (allowed) model.fill(set ? 1 : 0, first, first + n);
        expect(flagged(bits).map(Number).join('')).toBe(model.join(''));
      }
    },
  );

  it('a long run is refused for one wrong slot in any of its middle words, either way', () => {
    const bits = new UsedBits(kLargePoolTokens);
    // Slots [5, 5 + (words + 1) * 32): words 0 (from bit 5) to words + 1 (to bit 4), with 37 to 40
    // middle words.
    const set = (first: number, n: number): boolean => setRange(bits, first, n);
    const clear = (first: number, n: number): boolean => clearRange(bits, first, n);
    for (const words of [40, 39, 38, 37]) {
      const n = 32 * words + 32;
      for (let k = 1; k <= words; k++) {
        const stray = 32 * k + 17;
        expect(set(stray, 1)).toBe(true);
        expect(set(5, n)).toBe(false);
        expect(clear(stray, 1)).toBe(true);
        expect(set(5, n)).toBe(true);
        expect(clear(stray, 1)).toBe(true);
        expect(clear(5, n)).toBe(false);
        expect(set(stray, 1)).toBe(true);
        expect(clear(5, n)).toBe(true);
        expect(bits.words.every((w) => w === 0)).toBe(true);
      }
    }
  });

  // Pieces of consecutive slots, one after another (neighbours may join into one run), some
  // reaching outside the pool, some repeating slots of earlier pieces.
  const kPieces = fc.array(fc.record({ first: fc.integer({ min: -2, max: 131 }), length: fc.integer({ min: 1, max: 40 }) }), { maxLength: 8 });

  // In a large pool the pieces are longer.
  const kLargePieces = fc.array(fc.record({ first: fc.integer({ min: -2, max: kLargePoolTokens + 3 }), length: fc.integer({ min: 1, max: 500 }) }), { maxLength: 8 });
  const kCase = fc.oneof(
    fc.record({ size: kSize, setPieces: kPieces, clearPieces: kPieces }),
    fc.record({ size: fc.constantFrom(kLargePoolTokens, kLargePoolTokens + 45), setPieces: kLargePieces, clearPieces: kLargePieces }),
  );

  test.prop([kCase])(
    'setRuns / clearRuns stop at the first run that meets a bad slot, every run before it done',
    ({ size, setPieces, clearPieces }) => {
      const notes = new RunNotes(Math.max(size, 8 * 40));
      const bits = new UsedBits(size);
      const model: boolean[] = new Array<boolean>(size).fill(false);
      const toSlots = (pieces: { first: number; length: number }[]): Int32Array =>
        Int32Array.from(pieces.flatMap(({ first, length }) => Array.from({ length }, (_, k) => Math.min(first, size + 1) + k)));
      for (const [slots, set] of [
        [toSlots(setPieces), true],
        [toSlots(clearPieces), false],
      ] as const) {
        notes.runs = 0;
        if (slots.length > 0) notes.scan(slots, 0, slots.length);
        const n = slots.length;
        const { firsts, starts, runs } = notes;
        const stop = set ? bits.setRuns(firsts, starts, runs, n) : bits.clearRuns(firsts, starts, runs, n);
        // The model walks the same runs.
        let i = 0;
        while (i < n) {
          const first = slots[i] as number;
          let j = i + 1;
          while (j < n && slots[j] === first + (j - i)) j++;
          const inPool = first >= 0 && first + (j - i) <= size;
          if (!inPool || !model.slice(first, first + (j - i)).every((v) => v !== set)) break;
          model.fill(set, first, first + (j - i));
          i = j;
        }
        expect(stop).toBe(i);
        expect(flagged(bits).map(Number).join('')).toBe(model.map(Number).join(''));
      }
    },
  );

  it('a run that crosses words flips them all, and a flagged slot in its middle refuses it whole', () => {
    const bits = new UsedBits(100);
    expect(setRange(bits, 60, 1)).toBe(true);
    expect(setRange(bits, 10, 80)).toBe(false);
    expect(flagged(bits).filter((v) => v)).toHaveLength(1);
    expect(setRange(bits, 0, 60)).toBe(true);
    expect(setRange(bits, 61, 39)).toBe(true);
    expect(bits.words[0]).toBe(-1);
    expect(bits.words[3]).toBe(0b1111);
    expect(clearRange(bits, 1, 99)).toBe(true);
    expect(flagged(bits).filter((v) => v)).toEqual([true]);
    expect(clearRange(bits, 0, 2)).toBe(false);
    expect(bits.has(0)).toBe(true);
  });

  it('reads a slot outside the pool as not flagged', () => {
    const bits = new UsedBits(33);
    setRange(bits, 0, 33);
    expect([bits.has(-1), bits.has(33), bits.has(64), bits.has(2 ** 31)]).toEqual([false, false, false, false]);
  });
});
