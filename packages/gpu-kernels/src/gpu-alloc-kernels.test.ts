import { planDecode, planExtend, type ExtendBatch } from '@kvfuzz/allocator-core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireDevice, type GpuContext } from './acquire-device.js';
import { GpuAllocKernels } from './gpu-alloc-kernels.js';
import { kBatchSizeMax } from './kernel-limits.js';
import type { KernelBug } from './wgsl-sources.js';

let context: GpuContext;

beforeAll(async () => {
  // Under CI a missing adapter must fail, never skip: acquireDevice throws NoAdapterError naming the fix.
  context = await acquireDevice();
});
afterAll(() => context?.destroy());

/** A batch with consistent lastLoc values and a free list, on a geometry (page = kernel page × DCP). */
const batchArbitrary = (maxRequests: number, minRequests = 1, kernels = [1, 2, 4, 8, 16, 64], dcps = [1, 2, 4, 8, 16]) =>
  fc
    .record({ kernel: fc.constantFrom(...kernels), dcp: fc.constantFrom(...dcps) })
    .chain(({ kernel, dcp }) => {
      const ps = kernel * dcp;
      return fc.record({
        pageSize: fc.constant(ps),
        requests: fc.array(
          fc.record({
            pre: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 * ps }), fc.integer({ min: 0, max: 3 }).map((k) => k * ps)),
            ext: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: ps }), fc.integer({ min: 1, max: 3 }).map((k) => k * ps), fc.integer({ min: 1, max: 5 * ps })),
            lastPage: fc.integer({ min: 1, max: 1_000 }),
          }),
          { minLength: minRequests, maxLength: maxRequests, size: 'max' },
        ),
        shortBy: fc.constantFrom(0, 0, 0, 1),
        freeSeed: fc.integer({ min: 0, max: 1_000_000 }),
      });
    })
    .map(({ pageSize, requests, shortBy, freeSeed }) => {
      const batch: ExtendBatch = {
        prefixLens: requests.map((r) => r.pre),
        seqLens: requests.map((r) => r.pre + r.ext),
        lastLoc: requests.map((r) => (r.pre === 0 ? -1 : r.lastPage * pageSize + ((r.pre - 1) % pageSize))),
      };
      let needed = 0;
      for (const r of requests) needed += Math.ceil((r.pre + r.ext) / pageSize) - Math.ceil(r.pre / pageSize);
      // Distinct page ids in a scrambled order, exactly enough (or one short).
      const free = Array.from({ length: Math.max(0, needed - shortBy) }, (_, i) => 2_000 + ((i * 7919 + freeSeed) % 100_003));
      return { pageSize, batch, free: [...new Set(free)] };
    });

describe('gpu-kernels:extend', () => {
  it('matches the CPU reference on random batches (DCP widening, unaligned prefixes, zero extends, exact and short capacity)', async () => {
    const kernels = new GpuAllocKernels(context);
    await fc.assert(
      fc.asyncProperty(batchArbitrary(64), async ({ pageSize, batch, free }) => {
        const cpu = planExtend(batch, pageSize, free);
        const gpu = await kernels.planExtend(batch, pageSize, free);
        expect(gpu === null ? null : { slots: Array.from(gpu.slots), pageCount: gpu.pageCount }).toEqual(cpu === null ? null : { slots: Array.from(cpu.slots), pageCount: cpu.pageCount });
      }),
      { numRuns: 40 },
    );
  });

  it('matches the CPU reference on random batches of 1 to 4096 requests', async () => {
    const kernels = new GpuAllocKernels(context);
    await fc.assert(
      fc.asyncProperty(
        // Pages of up to 16 slots keep a 4096-request batch under a few hundred thousand output slots.
        fc.integer({ min: 1, max: 4096 }).chain((n) => batchArbitrary(n, n, [1, 2, 4], [1, 2, 4])),
        async ({ pageSize, batch, free }) => {
          const cpu = planExtend(batch, pageSize, free);
          const gpu = await kernels.planExtend(batch, pageSize, free);
          expect(gpu === null ? null : { slots: Array.from(gpu.slots), pageCount: gpu.pageCount }).toEqual(cpu === null ? null : { slots: Array.from(cpu.slots), pageCount: cpu.pageCount });
        },
      ),
      { numRuns: 6 },
    );
  });

  it('matches on batches of 4096 requests and a million-token extend', async () => {
    const kernels = new GpuAllocKernels(context);
    const ps = 64;
    const n = 4096;
    const batch: ExtendBatch = { prefixLens: Array.from({ length: n }, (_, i) => i % 200), seqLens: Array.from({ length: n }, (_, i) => (i % 200) + 1 + (i % 97)), lastLoc: Array.from({ length: n }, (_, i) => (i % 200 === 0 ? -1 : (5 + i) * ps + ((i % 200) - 1) % ps)) };
    const free = Array.from({ length: 20_000 }, (_, i) => 100_000 + i);
    const cpu = planExtend(batch, ps, free);
    const gpu = await kernels.planExtend(batch, ps, free);
    expect(Array.from(gpu?.slots ?? [])).toEqual(Array.from(cpu?.slots ?? []));
    const big: ExtendBatch = { prefixLens: [3], seqLens: [3 + 1_000_000], lastLoc: [64 * 9 + 2] };
    const bigFree = Array.from({ length: 15_700 }, (_, i) => 1 + i);
    const bigCpu = planExtend(big, ps, bigFree);
    const bigGpu = await kernels.planExtend(big, ps, bigFree);
    expect(bigGpu?.slots.length).toBe(1_000_000);
    expect(Buffer.from(bigGpu?.slots.buffer ?? new ArrayBuffer(0)).equals(Buffer.from(bigCpu?.slots.buffer ?? new ArrayBuffer(0)))).toBe(true);
  });
});

describe('gpu-kernels:scale', () => {
  it('matches the CPU reference at the largest batch, 65,536 requests (extend and decode), and refuses one more by a typed error', async () => {
    const kernels = new GpuAllocKernels(context);
    const ps = 16;
    const n = kBatchSizeMax;
    // Requests continue or start pages in a pattern that mixes every case of the scan.
    const prefixLens = Array.from({ length: n }, (_, i) => i % 37);
    const seqLens = Array.from({ length: n }, (_, i) => (i % 37) + (i % 5));
    const lastLoc = prefixLens.map((pre, i) => (pre === 0 ? -1 : (1 + i) * ps + ((pre - 1) % ps)));
    const free = Array.from({ length: 2 * n }, (_, i) => 3 * n + i);
    const cpu = planExtend({ prefixLens, seqLens, lastLoc }, ps, free);
    const gpu = await kernels.planExtend({ prefixLens, seqLens, lastLoc }, ps, free);
    expect(gpu?.pageCount).toBe(cpu?.pageCount);
    expect(Buffer.from(gpu?.slots.buffer ?? new ArrayBuffer(0)).equals(Buffer.from(cpu?.slots.buffer ?? new ArrayBuffer(0)))).toBe(true);
    const decodeSeq = seqLens.map((seq) => seq + 1);
    const decodeLast = seqLens.map((seq, i) => (1 + i) * ps + ((seq - 1 + ps) % ps));
    const cpuDecode = planDecode({ seqLens: decodeSeq, lastLoc: decodeLast }, ps, free);
    const gpuDecode = await kernels.planDecode({ seqLens: decodeSeq, lastLoc: decodeLast }, ps, free);
    expect(Array.from(gpuDecode?.slots ?? [])).toEqual(Array.from(cpuDecode?.slots ?? []));
    await expect(kernels.planExtend({ prefixLens: [...prefixLens, 0], seqLens: [...seqLens, 1], lastLoc: [...lastLoc, -1] }, ps, free)).rejects.toThrow(/batch of 65537 requests exceeds 65536/);
  });
});

describe('gpu-kernels:decode', () => {
  it('matches the CPU reference on random decode batches', async () => {
    const kernels = new GpuAllocKernels(context);
    await fc.assert(
      fc.asyncProperty(batchArbitrary(64), async ({ pageSize, batch, free }) => {
        const decode = { seqLens: Array.from(batch.seqLens, (s) => s + 1), lastLoc: Array.from(batch.seqLens, (s, i) => (s === 0 ? -1 : ((batch.lastLoc[i] as number) < 0 ? 7 * pageSize : Math.floor((batch.lastLoc[i] as number) / pageSize) * pageSize) + ((s - 1) % pageSize))) };
        const cpu = planDecode(decode, pageSize, free);
        const gpu = await kernels.planDecode(decode, pageSize, free);
        expect(gpu === null ? null : Array.from(gpu.slots)).toEqual(cpu === null ? null : Array.from(cpu.slots));
      }),
      { numRuns: 30 },
    );
  });
});

describe('gpu-kernels:free', () => {
  it('gives held pages back once and reports every page not held or named twice, by id', async () => {
    const kernels = new GpuAllocKernels(context);
    const state = kernels.createPageState(32, [3, 4, 5, 9, 10]);
    try {
      const first = await kernels.freeBatch(state, [3, 4, 4, 7, 0, 40], true);
      expect(first.freed.sort((a, b) => a - b)).toEqual([3, 4]);
      expect(first.reported.sort((a, b) => a - b)).toEqual([0, 4, 7, 40]);
      const second = await kernels.freeBatch(state, [5, 3, 9], true);
      expect(second.freed.sort((a, b) => a - b)).toEqual([5, 9]);
      expect(second.reported).toEqual([3]);
    } finally {
      state.destroy();
    }
  });

  it('reads no further than the free list is long when an unchecked free counts past its end', async () => {
    const kernels = new GpuAllocKernels(context);
    const state = kernels.createPageState(4, [1, 2]);
    try {
      context.device.pushErrorScope('validation');
      const result = await kernels.freeBatch(state, [1, 2, 1, 2, 1, 2, 3], false);
      expect(await context.device.popErrorScope()).toBeNull();
      expect(result.freed).toHaveLength(5);
      expect(state.listed).toBe(5);
    } finally {
      state.destroy();
    }
  });

  it('finds every planted duplicate in random batches (checked), and the unchecked kernel does not', async () => {
    const kernels = new GpuAllocKernels(context);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 300, size: 'max' }), fc.array(fc.nat(), { maxLength: 20, size: 'max' }), async (held, picks) => {
        const duplicates = [...new Set(picks.map((p) => held[p % held.length] as number))];
        const checked = kernels.createPageState(500, held);
        const unchecked = kernels.createPageState(500, held);
        try {
          const batch = [...held, ...duplicates];
          const result = await kernels.freeBatch(checked, batch, true);
          expect(result.freed.sort((a, b) => a - b)).toEqual([...held].sort((a, b) => a - b));
          expect(result.reported.sort((a, b) => a - b)).toEqual([...duplicates].sort((a, b) => a - b));
          const plain = await kernels.freeBatch(unchecked, batch, false);
          expect(plain.reported).toEqual([]);
          expect(plain.freed.length).toBe(batch.length);
        } finally {
          checked.destroy();
          unchecked.destroy();
        }
      }),
      { numRuns: 20 },
    );
  });
});

describe('gpu-kernels:mutants', () => {
  it.each<KernelBug>(['cursor-inclusive', 'tail-first-page', 'part1-unbounded', 'page-count-floor', 'capacity-unchecked'])('the differential test catches the planted kernel bug %s', async (bug) => {
    const kernels = new GpuAllocKernels(context, bug);
    const result = await fc.check(
      fc.asyncProperty(batchArbitrary(16), async ({ pageSize, batch, free }) => {
        const cpu = planExtend(batch, pageSize, free);
        const gpu = await kernels.planExtend(batch, pageSize, free);
        expect(gpu === null ? null : Array.from(gpu.slots)).toEqual(cpu === null ? null : Array.from(cpu.slots));
      }),
      { numRuns: 200 },
    );
    expect(result.failed, `seed ${result.seed}`).toBe(true);
  });

  it('the duplicate check catches the planted bug free-unchecked (the checked free runs the unchecked kernel)', async () => {
    const kernels = new GpuAllocKernels(context, 'free-unchecked');
    const state = kernels.createPageState(32, [3, 4, 5]);
    try {
      const result = await kernels.freeBatch(state, [3, 4, 4], true);
      expect(result.reported).toEqual([]);
      expect(result.freed.sort((a, b) => a - b)).toEqual([3, 4, 4]);
    } finally {
      state.destroy();
    }
  });
});
