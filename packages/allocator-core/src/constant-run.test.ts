import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { constantRunTest } from './internal/constant-run.js';

/** The test as built without Node's `Buffer` (the loop a browser gets). */
function withoutBuffer(words: Int32Array): ReturnType<typeof constantRunTest> {
  const holder = globalThis as unknown as { Buffer?: unknown };
  const saved = holder.Buffer;
  delete holder.Buffer;
  try {
    return constantRunTest(words);
  } finally {
    holder.Buffer = saved;
  }
}

describe('allocator-core:constant-run', () => {
  // The words sit at an offset inside a larger buffer, so a byte view that ignored the offset would compare the wrong words.
  test.prop([fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 40 }), fc.nat({ max: 7 }), fc.nat(), fc.nat()], { numRuns: 300 })(
    'says a range is constant exactly when every word equals its first, with and without Buffer',
    (values, offset, a, b) => {
      const backing = new Int32Array(values.length + offset + 3).fill(99);
      const words = backing.subarray(offset, offset + values.length);
      words.set(values);
      const from = a % (values.length + 1);
      const to = from + (b % (values.length - from + 1));
      const expected = values.slice(from, to).every((v) => v === values[from]);
      expect(constantRunTest(words)(from, to)).toBe(expected);
      expect(withoutBuffer(words)(from, to)).toBe(expected);
    },
  );
});
