import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RunNotes } from './run-notes.js';
import { kWasmScanMinSlots } from './run-scan-wasm.js';

// A scan notes a run start (and the run's first slot) exactly where a slot does not follow the one
// before it, and at the first slot, whatever the scan's length (JavaScript reads four slots a step,
// WebAssembly sixteen, then one at a time).
describe('host-pool:run-notes', () => {
  const kSlots = fc.array(fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constantFrom(2 ** 31 - 1, -(2 ** 31))), { minLength: 1, maxLength: 70, size: 'max' });
  // The same scan in JavaScript (a small capacity) and in WebAssembly (slots in the notes' memory).
  const small = new RunNotes(256);
  const wasm = new RunNotes(kWasmScanMinSlots);

  it('scans in WebAssembly where the slots lie in its memory (this engine has SIMD)', () => {
    expect(small.area).toBeNull();
    expect(wasm.area).not.toBeNull();
  });

  test.prop([kSlots, fc.nat(5), kSlots, fc.boolean()])('notes every run start of the scanned range, and only them', (call, from, before, inWasm) => {
    const notes = inWasm ? wasm : small;
    const area = (inWasm ? wasm.area?.pending : undefined) ?? new Int32Array(256);
    // A scan before this one leaves nothing behind.
    area.set(before, 0);
    notes.scan(area, 0, before.length);
    // The range sits inside a larger array, after `from` other slots and before one more.
    area.set([...Array.from({ length: from }, (_, i) => i), ...call, (call.at(-1) as number) + 1], 0);
    notes.scan(area, from, call.length);
    // In int32 arithmetic, as the scan counts: 2^31 − 1 runs on into −2^31 (such a run holds a
    // slot outside every pool, so the flags refuse it whole).
    const expected = call.flatMap((slot, i) => (i === 0 || slot !== (((call[i - 1] as number) + 1) | 0) ? [i] : []));
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual(expected);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual(expected.map((i) => call[i]));
  });

  // Runs long enough to cross several steps of sixteen, for the WebAssembly scan's test of a whole
  // step against the run it expects there, and breaks at every lane after such steps.
  const kRuns = fc.array(
    fc.record({ first: fc.oneof(fc.integer({ min: -3, max: 200 }), fc.integer({ min: 2 ** 31 - 40, max: 2 ** 31 - 1 })), length: fc.integer({ min: 1, max: 60 }) }),
    { minLength: 1, maxLength: 8 },
  );
  const flatRuns = (runs: readonly { first: number; length: number }[]): number[] =>
    runs.flatMap(({ first, length }) => Array.from({ length }, (_, j) => (first + j) | 0));

  // One run whose slots move by a few places from given indices on (slot i is base + i + the shift in
  // force): a slot repeated, a run that resumes where it would have been, a jump of a vector or a
  // step — the slots a step's expected values could match if they were stale or off by some lanes.
  // Where the WebAssembly scan's steps begin: slot 1 of the call, then every sixteen.
  const kStepStart = fc.integer({ min: 0, max: 12 }).map((k) => 1 + 16 * k);
  const kShifted = fc
    .record({
      base: fc.oneof(fc.integer({ min: -3, max: 100 }), fc.integer({ min: 2 ** 31 - 200, max: 2 ** 31 - 1 })),
      length: fc.integer({ min: 1, max: 200 }),
      shifts: fc.array(fc.record({ at: fc.oneof(fc.nat(199), kStepStart), by: fc.constantFrom(0, 1, -1, 4, -4, 12, -12, 15, 16, -16, -17) }), { maxLength: 6 }),
    })
    .map(({ base, length, shifts }) =>
      Array.from({ length }, (_, i) => (base + i + shifts.reduce((sum, { at, by }) => (at <= i ? sum + by : sum), 0)) | 0),
    );

  test.prop([fc.oneof(kRuns.map(flatRuns), kShifted), fc.nat(20), fc.boolean()], { numRuns: 400 })('notes every run start of a call made of long runs', (call, from, inWasm) => {
    const notes = inWasm ? wasm : small;
    const area = (inWasm ? wasm.area?.pending : undefined) ?? new Int32Array(1024);
    area.set([...Array.from({ length: from }, (_, i) => i), ...call, 7], 0);
    notes.scan(area, from, call.length);
    const expected = call.flatMap((slot, i) => (i === 0 || slot !== (((call[i - 1] as number) + 1) | 0) ? [i] : []));
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual(expected);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual(expected.map((i) => call[i]));
  });

  it('notes every break of a run moved at the starts of its vectors, or at one lane of every vector (WebAssembly)', () => {
    // Four steps of sixteen after slot 0. Each pattern moves slots of one run by one of kMoves: the
    // rest of the run from the start of a vector, twice (a step that resumes an earlier run, repeats
    // a slot or lags by a vector), or one lane in every vector — what a stale or misplaced
    // expectation of the whole-step test would pass.
    const kMoves = [1, -1, 4, -4, 12, -12, 15, 16, -16, -17];
    const kLength = 65;
    const call = new Int32Array(kLength);
    const area = wasm.area?.pending as Int32Array;
    let bad = 0;
    const check = (): void => {
      area.set(call, 0);
      wasm.scan(area, 0, kLength);
      let runs = 1;
      for (let i = 1; i < kLength; i++) {
        if (call[i] === (call[i - 1] as number) + 1) continue;
        if (wasm.starts[runs] !== i || wasm.firsts[runs] !== call[i]) bad++;
        runs++;
      }
      if (wasm.runs !== runs) bad++;
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
