import { describe, expect, it } from 'vitest';
import { ReadPass } from './read-pass-wasm.js';

describe('bench:probes,read-pass', () => {
  it('reads every slot: one set bit anywhere in a chunk of any length (whole steps of 16 and the tail) comes back', () => {
    for (let length = 1; length <= 40; length++) {
      for (let k = 0; k < length; k++) {
        const chunk = new Int32Array(length);
        chunk[k] = 1 << (k % 31);
        // A chunk before it, so that the one under test does not start at byte 0.
        const pass = new ReadPass([new Int32Array(length), chunk]);
        expect(pass.readAll(), `length ${length}, slot ${k}`).toBe(1 << (k % 31));
      }
    }
  });

  it('ORs every chunk: each of 32 chunks holds its own bit, so a chunk skipped is a bit missing', () => {
    const chunks = Array.from({ length: 32 }, (_, c) => {
      const chunk = new Int32Array(17 + 13 * c);
      chunk[(7 * c) % chunk.length] = 1 << c;
      return chunk;
    });
    expect(new ReadPass(chunks).readAll()).toBe(-1);
    expect(new ReadPass(chunks.slice(1)).readAll()).toBe(-1 & ~1);
  });

  it('an empty chunk reads as nothing', () => {
    expect(new ReadPass([new Int32Array(0), Int32Array.of(0, 0, 4)]).readAll()).toBe(4);
  });
});
