import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { kLargePoolTokens } from '../test-support/large-pool.js';
import { naiveRunStarts } from '../test-support/naive-run-starts.js';
import { RunNotes } from './run-notes.js';

// A scan notes a run start (and the run's first slot) exactly where a slot does not follow the one
// before it, and at the first slot, whatever the scan's length (four slots a step, then one at a time).
describe('host-pool:run-notes', () => {
  const kSlots = fc.array(fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constantFrom(2 ** 31 - 1, -(2 ** 31))), { minLength: 1, maxLength: 70, size: 'max' });
  const small = new RunNotes(256);

  test.prop([kSlots, fc.nat(5), kSlots])('notes every run start of the scanned range, and only them', (call, from, before) => {
    const notes = small;
    const area = new Int32Array(256);
    // A scan before this one leaves nothing behind.
    area.set(before, 0);
    notes.scan(area, 0, before.length);
    // The range sits inside a larger array, after `from` other slots and before one more.
    area.set([...Array.from({ length: from }, (_, i) => i), ...call, (call.at(-1) as number) + 1], 0);
    notes.scan(area, from, call.length);
    // In int32 arithmetic, as the scan counts: 2^31 − 1 runs on into −2^31 (such a run holds a
    // slot outside every pool, so the flags refuse it whole).
    const expected = naiveRunStarts(call);
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual(expected);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual(expected.map((i) => call[i]));
  });

  // Runs long enough to cross many steps of four, with breaks at every lane after such steps.
  const kRuns = fc.array(
    fc.record({ first: fc.oneof(fc.integer({ min: -3, max: 200 }), fc.integer({ min: 2 ** 31 - 40, max: 2 ** 31 - 1 })), length: fc.integer({ min: 1, max: 60 }) }),
    { minLength: 1, maxLength: 8 },
  );
  const flatRuns = (runs: readonly { first: number; length: number }[]): number[] =>
    runs.flatMap(({ first, length }) => Array.from({ length }, (_, j) => (first + j) | 0));

  // One run whose slots move by a few places from given indices on (slot i is base + i + the shift in
  // force): a slot repeated, a run that resumes where it would have been, a jump of a vector or a
  // step — the slots a step's comparison could miss if it were off by some lanes.
  // Where the scan's steps begin: slot 1 of the call, then every four.
  const kStepStart = fc.integer({ min: 0, max: 48 }).map((k) => 1 + 4 * k);
  const kShifted = fc
    .record({
      base: fc.oneof(fc.integer({ min: -3, max: 100 }), fc.integer({ min: 2 ** 31 - 200, max: 2 ** 31 - 1 })),
      length: fc.integer({ min: 1, max: 200 }),
      shifts: fc.array(fc.record({ at: fc.oneof(fc.nat(199), kStepStart), by: fc.constantFrom(0, 1, -1, 4, -4, 12, -12, 15, 16, -16, -17) }), { maxLength: 6 }),
    })
    .map(({ base, length, shifts }) =>
      Array.from({ length }, (_, i) => (base + i + shifts.reduce((sum, { at, by }) => (at <= i ? sum + by : sum), 0)) | 0),
    );

  test.prop([fc.oneof(kRuns.map(flatRuns), kShifted), fc.nat(20)], { numRuns: 400 })('notes every run start of a call made of long runs', (call, from) => {
    const notes = small;
    const area = new Int32Array(1024);
    area.set([...Array.from({ length: from }, (_, i) => i), ...call, 7], 0);
    notes.scan(area, from, call.length);
    const expected = naiveRunStarts(call);
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual(expected);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual(expected.map((i) => call[i]));
  });

  it('notes every break of a run moved at the starts of its steps, or at one lane of every step', () => {
    // Sixteen steps of four after slot 0. Each pattern moves slots of one run by one of kMoves: the
    // rest of the run from the start of a step, twice (a step that resumes an earlier run, repeats
    // a slot or lags by a step), or one lane in every step — what a misplaced comparison would pass.
    const kMoves = [1, -1, 4, -4, 12, -12, 15, 16, -16, -17];
    const kLength = 65;
    const call = new Int32Array(kLength);
    const notes = new RunNotes(kLength);
    let bad = 0;
    const check = (): void => {
      notes.scan(call, 0, kLength);
      let runs = 1;
      for (let i = 1; i < kLength; i++) {
        if (call[i] === (call[i - 1] as number) + 1) continue;
        if (notes.starts[runs] !== i || notes.firsts[runs] !== call[i]) bad++;
        runs++;
      }
      if (notes.runs !== runs) bad++;
    };
    for (let a = 1; a < kLength; a += 4) {
      for (const byA of kMoves) {
        for (let b = a; b < kLength; b += 4) {
          for (const byB of kMoves) {
            for (let i = 0; i < kLength; i++) call[i] = 100 + i + (i >= a ? byA : 0) + (i >= b ? byB : 0);
            check();
          }
        }
      }
    }
    for (let lane = 0; lane < 4; lane++) {
      for (const by of kMoves) {
        for (let i = 0; i < kLength; i++) call[i] = 100 + i + (i >= 1 && (i - 1) % 4 === lane ? by : 0);
        check();
      }
    }
    expect(bad).toBe(0);
  });

  // The scan a pool makes of a call as long as the pool, in a small pool and in one of the size the
  // bench times: every slot of the pool once, in runs of random lengths put in random order.
  test.prop([fc.constantFrom(64, kLargePoolTokens), fc.array(fc.nat(300), { minLength: 1, maxLength: 40 }), fc.infiniteStream(fc.nat())], { numRuns: 60 })(
    'agrees with the naive scan on a call of a whole pool, small or large',
    (size, cuts, picks) => {
      const runs: number[][] = [];
      let slot = 0;
      for (const cut of cuts) {
        if (slot >= size) break;
        const end = Math.min(size, slot + 1 + cut);
        runs.push(Array.from({ length: end - slot }, (_, k) => slot + k));
        slot = end;
      }
      if (slot < size) runs.push(Array.from({ length: size - slot }, (_, k) => slot + k));
      const it = picks[Symbol.iterator]();
      for (let i = runs.length - 1; i > 0; i--) {
        const j = (it.next().value as number) % (i + 1);
        [runs[i], runs[j]] = [runs[j] as number[], runs[i] as number[]];
      }
      const call = Int32Array.from(runs.flat());
      const notes = new RunNotes(size);
      notes.scan(call, 0, size);
      const expected = naiveRunStarts(call);
      expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual(expected);
      expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual(expected.map((i) => call[i]));
    },
  );

  it('opens a run at the first slot whatever its value, and breaks runs inside and across steps of four', () => {
    const notes = new RunNotes(16);
    notes.scan(Int32Array.of(-1, 0, 1, 2, 3, 4, 9, 10, 11, 5, 6), 0, 11);
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual([0, 6, 9]);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual([-1, 9, 5]);
  });

  it('notes a found run as one run, and a scan after it starts afresh', () => {
    const notes = new RunNotes(8);
    notes.scan(Int32Array.of(5, 9), 0, 2);
    notes.noteOneRun(40);
    expect([notes.runs, notes.starts[0], notes.firsts[0]]).toEqual([1, 0, 40]);
    notes.scan(Int32Array.of(7, 8, 3), 0, 3);
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual([0, 2]);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual([7, 3]);
  });
});
