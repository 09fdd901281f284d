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
