import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { kWasmScanMinSlots, WasmRunArea } from './run-scan-wasm.js';

// The engine's rule, in JavaScript arithmetic (no wrap past 2^31 − 1): the smallest list offset on
// a page boundary holding a page-aligned slot from which n ids follow one another; −1 for none.
function firstRun(list: readonly number[], n: number, ps: number): number {
  for (let start = 0; start + n <= list.length; start += ps) {
    const first = list[start] as number;
    if (first % ps !== 0) continue;
    let k = 1;
    while (k < n && list[start + k] === first + k) k++;
    if (k === n) return start;
  }
  return -1;
}

describe('host-pool:run-search-wasm', () => {
  const area = WasmRunArea.create(kWasmScanMinSlots, false) as WasmRunArea;

  it('an unchecked pool\'s area holds the lists alone', () => {
    expect(area).not.toBeNull();
    expect([area.list.length, area.pending.length, area.scratch.length, area.words.length]).toEqual([kWasmScanMinSlots, kWasmScanMinSlots, 0, 0]);
  });

  // Runs of ids, short and long (across several steps of sixteen), some around 2^31 − 1 and −2^31
  // (where JavaScript's `prev + 1` does not wrap), cut anywhere into the free list and the pending.
  const kRun = fc.record({
    first: fc.oneof(fc.integer({ min: -5, max: 400 }), fc.integer({ min: 2 ** 31 - 40, max: 2 ** 31 - 1 }), fc.integer({ min: -(2 ** 31), max: -(2 ** 31) + 40 })),
    length: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 9, max: 120 })),
  });
  const kCase = fc.record({
    runs: fc.array(kRun, { maxLength: 12 }),
    cut: fc.nat(),
    ps: fc.constantFrom(1, 2, 3, 4, 6, 8, 64),
    pages: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 40 })),
  });

  test.prop([kCase], { numRuns: 400 })('finds the run the engine\'s rule picks, or none', ({ runs, cut, ps, pages }) => {
    const list = runs.flatMap(({ first, length }) => Array.from({ length }, (_, k) => (first + k) | 0));
    const c1 = list.length === 0 ? 0 : cut % (list.length + 1);
    area.list.set(list.slice(0, c1), 0);
    area.pending.set(list.slice(c1), 0);
    const n = ps * pages;
    expect(area.searchAt(area.listAt, c1, area.pendingAt, list.length - c1, n, ps)).toBe(firstRun(list, n, ps));
  });

  it('finds a run that ends with the list, after a step compared lane by lane and after one compared whole', () => {
    // Entry 0 alone, then steps of sixteen: [1, 17) lane by lane (no segment yet known to go on),
    // [17, 33) whole.
    area.list.set(Array.from({ length: 33 }, (_, i) => 100 + i), 0);
    expect(area.searchAt(area.listAt, 17, area.pendingAt, 0, 17, 1)).toBe(0);
    expect(area.searchAt(area.listAt, 33, area.pendingAt, 0, 33, 1)).toBe(0);
    expect(area.searchAt(area.listAt, 33, area.pendingAt, 0, 34, 1)).toBe(-1);
  });

  it('reads the free list from any start, and the pending chunks after it as one list', () => {
    // Free list entries 5 … 9 of the buffer: [9, 10, 11, 12, 20]; pending [21, 22, 23, 13].
    area.list.set([0, 0, 0, 0, 0, 9, 10, 11, 12, 20], 0);
    area.pending.set([21, 22, 23, 13], 0);
    const at = area.listAt + 4 * 5;
    expect(area.searchAt(at, 5, area.pendingAt, 4, 4, 1)).toBe(0);
    expect(area.searchAt(at, 5, area.pendingAt, 4, 4, 2)).toBe(4); // [20 … 23] across the two
    expect(area.searchAt(at, 5, area.pendingAt, 0, 4, 2)).toBe(-1);
    expect(area.searchAt(at, 5, area.pendingAt, 4, 5, 1)).toBe(-1);
  });
});
