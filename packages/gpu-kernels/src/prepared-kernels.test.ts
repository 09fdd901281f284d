import { planDecode, planExtend, type ExtendBatch } from '@kvfuzz/allocator-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireDevice, type GpuContext } from './acquire-device.js';
import { GpuAllocKernels } from './gpu-alloc-kernels.js';
import { PreparedKernels, type PreparedKernel } from './prepared-kernels.js';

let context: GpuContext;

beforeAll(async () => {
  // Under CI a missing adapter must fail, never skip: acquireDevice throws NoAdapterError naming the fix.
  context = await acquireDevice({ timestampQuantization: false });
});
afterAll(() => context?.destroy());

async function readWords(source: GPUBuffer, words: number, encodeFirst?: (encoder: GPUCommandEncoder) => void): Promise<Uint32Array> {
  const device = context.device;
  const staging = device.createBuffer({ size: words * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  try {
    const encoder = device.createCommandEncoder();
    encodeFirst?.(encoder);
    encoder.copyBufferToBuffer(source, 0, staging, 0, words * 4);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    return new Uint32Array(staging.getMappedRange().slice(0));
  } finally {
    staging.destroy();
  }
}

const kPageSize = 16;
const batch: ExtendBatch = { prefixLens: [0, 5, 16, 40], seqLens: [20, 5, 33, 41], lastLoc: [-1, 3 * kPageSize + 4, 9 * kPageSize + 15, 12 * kPageSize + 7] };
const freePages = [21, 30, 22, 25, 27, 40, 31];

describe('gpu-kernels:prepared', () => {
  it('an extend encoded three times into one command buffer gives the CPU reference', async () => {
    const prepared = new PreparedKernels(context).extend(batch, kPageSize, freePages) as PreparedKernel;
    try {
      expect(prepared.passCount).toBe(2);
      const words = (planExtend(batch, kPageSize, freePages)?.slots.length ?? 0);
      const got = await readWords(prepared.output, words, (encoder) => {
        for (let r = 0; r < 3; r++) prepared.encode(encoder);
      });
      expect(Array.from(new Int32Array(got.buffer))).toEqual(Array.from(planExtend(batch, kPageSize, freePages)?.slots ?? []));
    } finally {
      prepared.destroy();
    }
  });

  it('a decode gives the CPU reference, and a short free list gives null', async () => {
    const decode = { seqLens: [17, 9, 33], lastLoc: [5 * kPageSize + 15, 2 * kPageSize + 7, 8 * kPageSize + 15] };
    const kernels = new PreparedKernels(context);
    expect(kernels.decode(decode, kPageSize, [4])).toBeNull();
    const prepared = kernels.decode(decode, kPageSize, [4, 6]) as PreparedKernel;
    try {
      const got = await readWords(prepared.output, 3, (encoder) => prepared.encode(encoder));
      expect(Array.from(new Int32Array(got.buffer))).toEqual(Array.from(planDecode(decode, kPageSize, [4, 6])?.slots ?? []));
    } finally {
      prepared.destroy();
    }
  });

  it('a checked free repeated over a restored state reports the same pages each time; timestamps are written', async () => {
    const device = context.device;
    const state = new GpuAllocKernels(context).createPageState(16, [3, 4, 5]);
    const pristine = device.createBuffer({ size: 17 * 4, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    const querySet = device.createQuerySet({ type: 'timestamp', count: 4 });
    const resolved = device.createBuffer({ size: 32, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    const prepared = new PreparedKernels(context).free(state, [3, 4, 4, 7], true);
    try {
      const seed = device.createCommandEncoder();
      seed.copyBufferToBuffer(state.pageState, 0, pristine, 0, 17 * 4);
      device.queue.submit([seed.finish()]);
      const counters = await readWords(state.counters, 2, (encoder) => {
        for (let r = 0; r < 2; r++) {
          encoder.copyBufferToBuffer(pristine, 0, state.pageState, 0, 17 * 4);
          encoder.clearBuffer(state.counters);
          prepared.encode(encoder, { querySet, beginIndex: 2 * r, endIndex: 2 * r + 1 });
        }
        encoder.resolveQuerySet(querySet, 0, 4, resolved, 0);
      });
      // The second run starts from the restored state: two pages freed (3, 4), two reported (4, 7).
      expect(Array.from(counters)).toEqual([2, 2]);
      expect(Array.from(await readWords(prepared.output, 2)).sort((a, b) => a - b)).toEqual([4, 7]);
      const stamps = new BigUint64Array((await readWords(resolved, 8)).buffer);
      for (let r = 0; r < 2; r++) expect(stamps[2 * r + 1]! >= stamps[2 * r]! && stamps[2 * r]! > 0n).toBe(true);
    } finally {
      prepared.destroy();
      state.destroy();
      pristine.destroy();
      resolved.destroy();
      querySet.destroy();
    }
  });

  it('refuses timestamps without the feature, and calls with nothing to do', () => {
    const kernels = new PreparedKernels({ ...context, timestampQuery: false });
    const prepared = kernels.extend(batch, kPageSize, freePages) as PreparedKernel;
    try {
      const querySet = { label: 'fake' } as unknown as GPUQuerySet;
      expect(() => prepared.encode(context.device.createCommandEncoder(), { querySet, beginIndex: 0, endIndex: 1 })).toThrow(/timestamp-query/);
    } finally {
      prepared.destroy();
    }
    expect(() => kernels.extend({ prefixLens: [4], seqLens: [4], lastLoc: [3] }, kPageSize, [])).toThrow(/needs work/);
    expect(() => kernels.extend({ prefixLens: [4], seqLens: [3], lastLoc: [3] }, kPageSize, [])).toThrow(/seqLens 3 < prefixLens 4/);
  });
});
