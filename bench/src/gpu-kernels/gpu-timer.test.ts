import { acquireDevice, type GpuContext } from '@kvfuzz/gpu-kernels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyRep } from './empty-pass.js';
import { decodeTimestampDurations, GpuTimer, kRepsPerSubmitMax, TimestampError } from './gpu-timer.js';

describe('bench:gpu-kernels,timestamps', () => {
  it('decodes begin/end pairs into durations (ns)', () => {
    const stamps = new BigUint64Array([1_000n, 1_250n, 5_000_000_000n, 5_000_000_001n, 7n, 7n]);
    expect(Array.from(decodeTimestampDurations(stamps, 3))).toEqual([250, 1, 0]);
    // Only the first `reps` pairs are read.
    expect(Array.from(decodeTimestampDurations(stamps, 1))).toEqual([250]);
  });

  it('refuses pairs that are not durations, naming the repetition', () => {
    expect(() => decodeTimestampDurations(new BigUint64Array([10n, 20n, 0n, 5n]), 2)).toThrow(new TimestampError('repetition 1: begin timestamp is 0 (the query was never written)'));
    expect(() => decodeTimestampDurations(new BigUint64Array([30n, 20n]), 1)).toThrow(/repetition 0: end timestamp 20 lies before begin 30/);
    expect(() => decodeTimestampDurations(new BigUint64Array([1n, 2n]), 2)).toThrow(/2 timestamps for 2 repetitions/);
  });
});

describe('bench:gpu-kernels,timer', () => {
  let context: GpuContext;
  beforeAll(async () => {
    // Under CI a missing adapter fails here with acquireDevice's NoAdapterError, never a skip.
    context = await acquireDevice({ timestampQuantization: false });
  });
  afterAll(() => context?.destroy());

  it('times an empty pass with timestamps when the adapter has them, unquantized', async () => {
    const timer = new GpuTimer(context);
    try {
      expect(timer.timing).toBe(context.timestampQuery ? 'timestamp-query' : 'wall-clock');
      const empty = createEmptyRep(context.device);
      // An odd count makes each median one real duration; Dawn's quantization would clear its low 16 bits.
      const medians = [];
      for (let i = 0; i < 5; i++) medians.push(await timer.timeRepsNs(empty, 5));
      for (const ns of medians) expect(ns > 0 && Number.isFinite(ns), String(ns)).toBe(true);
      if (timer.timing === 'timestamp-query') expect(medians.some((ns) => ns % 65_536 !== 0), medians.join(', ')).toBe(true);
      await expect(timer.timeRepsNs(empty, kRepsPerSubmitMax + 1)).rejects.toThrow(RangeError);
    } finally {
      timer.destroy();
    }
  });

  it('falls back to wall time over many dispatches', async () => {
    const timer = new GpuTimer(context, true);
    try {
      expect(timer.timing).toBe('wall-clock');
      const ns = await timer.timeRepsNs(createEmptyRep(context.device), 16);
      expect(ns > 0 && Number.isFinite(ns)).toBe(true);
    } finally {
      timer.destroy();
    }
  });
});
