import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RunNotes } from './run-notes.js';

// A copy in pieces (as a hand-out reads the free list, then the pending chunks) notes a run start
// (and the run's first slot) exactly where a slot does not follow the one before it in the whole
// copy, and at index 0.
describe('host-pool:run-notes', () => {
  const kSlots = fc.array(fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constantFrom(2 ** 31 - 1, -(2 ** 31))), { maxLength: 30, size: 'max' });

  test.prop([fc.array(kSlots, { maxLength: 4 }), fc.array(kSlots, { maxLength: 4 })])('notes every run start of the whole copy, across pieces, and copies every slot', (pieces, before) => {
    const notes = new RunNotes(200);
    // A copy before this one leaves nothing behind.
    notes.begin();
    const junk = before.flat();
    notes.copy(Int32Array.from(junk), 0, new Int32Array(junk.length), 0, junk.length);
    const all = pieces.flat();
    const dst = new Int32Array(all.length + 2);
    notes.begin();
    let at = 1;
    for (const piece of pieces) {
      // Each piece sits inside a larger source, at an offset.
      const src = Int32Array.from([7, ...piece, 7]);
      notes.copy(src, 1, dst, at - 1, piece.length);
      at += piece.length;
    }
    expect(Array.from(dst.subarray(0, all.length))).toEqual(all);
    // In int32 arithmetic, as the copier counts: 2^31 − 1 runs on into −2^31 (such a run holds a
    // slot outside every pool, so the flags refuse it whole).
    const expected = all.flatMap((slot, i) => (i === 0 || slot !== (((all[i - 1] as number) + 1) | 0) ? [i] : []));
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual(expected);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual(expected.map((i) => all[i]));
  });

  it('opens a run at the first slot whatever its value, and joins pieces that continue each other', () => {
    const notes = new RunNotes(8);
    notes.begin();
    const dst = new Int32Array(6);
    notes.copy(Int32Array.of(0, 1, 2), 0, dst, 0, 3);
    notes.copy(Int32Array.of(3, 4, 9), 0, dst, 3, 3);
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual([0, 5]);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual([0, 9]);
  });

  it('notes a found run as one run, and a copy after it starts afresh', () => {
    const notes = new RunNotes(8);
    notes.begin();
    notes.copy(Int32Array.of(5, 9), 0, new Int32Array(2), 0, 2);
    notes.noteOneRun(40);
    expect([notes.runs, notes.starts[0], notes.firsts[0]]).toEqual([1, 0, 40]);
    notes.begin();
    notes.copy(Int32Array.of(7, 8, 3), 0, new Int32Array(3), 0, 3);
    expect(Array.from(notes.starts.subarray(0, notes.runs))).toEqual([0, 2]);
    expect(Array.from(notes.firsts.subarray(0, notes.runs))).toEqual([7, 3]);
  });
});
