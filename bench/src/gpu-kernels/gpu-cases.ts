/**
 * The GPU benches (`pnpm bench --gpu`): the WGSL kernels of `@kvfuzz/gpu-kernels`, timed on one
 * device in the bench process itself (not in child processes: the variants share the device).
 *
 * - `plan-extend`, `plan-decode`: the kernel against allocator-core's CPU reference
 *   (`planExtend` / `planDecode`) on the same batch and free list — baseline `cpu`, compared
 *   `gpu`, an informational ratio. The batches are drawn as `allocator-core/alloc-extend` and
 *   `alloc-decode` draw theirs (16k new tokens over an extend batch; one token per request in a
 *   decode step).
 * - `free-batch`: the checked batch free (atomic held → free swap, reporting what is not held)
 *   against the unchecked one over the same held pages — baseline `checks-off`, compared
 *   `checks-on`, judged against the margin like every checks ratio.
 *
 * @packageDocumentation
 */
import { planDecode, planExtend, type DecodeBatch, type ExtendBatch } from '@kvfuzz/allocator-core';
import { GpuAllocKernels, type PreparedKernel, type PreparedKernels } from '@kvfuzz/gpu-kernels';
import { do_not_optimize } from 'mitata';
import { crossProduct, expandName, type BenchArgs, type VariantId } from '../harness/bench-pair.js';
import { Draw } from '../harness/draw.js';
import { pageSizeOf, type Geometry } from '../harness/geometries.js';
import type { EncodeRep } from './gpu-timer.js';

/** The variants of a GPU case: checks off/on (free) or CPU reference / GPU kernel (plans). */
export type GpuVariantId = VariantId | 'cpu' | 'gpu';
/** `checks`: a gating checks-on / checks-off ratio; `gpu-vs-cpu`: an informational GPU / CPU ratio. */
export type GpuCaseKind = 'checks' | 'gpu-vs-cpu';

/** How one variant runs: GPU repetitions encoded into a timed submission, or a CPU function. */
export type VariantRunner =
  | { readonly kind: 'gpu'; readonly rep: EncodeRep; /** The same submission with an empty pass in place of the kernel. */ readonly emptyRep: EncodeRep }
  | { readonly kind: 'cpu'; readonly fn: () => void };

/** A case's state on the device, built once per run (untimed). */
export interface CaseRig {
  readonly baseline: VariantRunner;
  readonly compared: VariantRunner;
  destroy(): void;
}

/** One GPU case: one point of one op. */
export interface GpuCase {
  /** The address `gpu-kernels:op:expanded name`, e.g. `gpu-kernels:free-batch:freeBatch 4096`. */
  readonly name: string;
  readonly package: 'gpu-kernels';
  readonly op: string;
  /** Path under `bench/src`. */
  readonly file: string;
  readonly args: BenchArgs;
  readonly kind: GpuCaseKind;
  /** The variant the ratio divides by. */
  readonly baseline: GpuVariantId;
  readonly compared: GpuVariantId;
  /**
   * Builds the case's state on the device.
   *
   * @param aa - A/A calibration: the compared variant runs the baseline's code.
   */
  setup(kernels: PreparedKernels, emptyRep: EncodeRep, aa: boolean): CaseRig;
}

/** New tokens per extend batch, as in `allocator-core/alloc-extend` (twice SGLang's chunked-prefill default). */
const kExtendTokensPerBatch = 16_384;
/** Longest prefix an extend request continues (tokens). */
const kPrefixTokensMax = 8192;
/** Share of extend requests with an empty prefix (no `lastLoc`). */
const kFreshShare = 0.25;
/** Longest running request of a decode step (tokens after the new one), as in `alloc-decode`. */
const kSeqTokensMax = 16_384;
/** The first page id handed out: page 0 is reserved. */
const kFirstPage = 1;

/** Batch sizes: one request, a small and a large engine batch, and the kernels' limit (`kBatchSizeMax`). */
const kBatches = [1, 64, 4096, 65_536];
const kBatchesQuick = [1, 4096];
/** Geometries of the plans (the allocator page is their product): the token allocator and DCP 8 × 64. */
const kPlanGeometries: readonly Geometry[] = [
  { dcp: 1, kernelPage: 1 },
  { dcp: 8, kernelPage: 64 },
];
const kPlanGeometriesQuick: readonly Geometry[] = [{ dcp: 8, kernelPage: 64 }];
/**
 * Pages per free batch. Smaller batches time the dispatch, not the kernel (they measure nothing
 * next to an empty pass), so the sweep starts at 16k; 256k pages is a whole large pool given back
 * at once.
 */
const kFreePages = [16_384, 65_536, 262_144];
const kFreePagesQuick = [16_384, 65_536];

/** The file every GPU case names (path under `bench/src`). */
const kFile = 'gpu-kernels/gpu-cases.ts';

/** Page ids `kFirstPage …` in a scrambled order, `count` of them, from `draw`. */
function scrambledPages(draw: Draw, count: number, firstPage: number): Int32Array {
  const order = draw.permutation(count);
  for (let i = 0; i < count; i++) order[i] = firstPage + (order[i] as number);
  return order;
}

/** An extend batch and its free list, exactly enough pages; prefix pages come before the free ones. */
export function drawExtend(args: Geometry & { readonly batch: number }): { batch: ExtendBatch; freePages: Int32Array } {
  const ps = pageSizeOf(args);
  const n = args.batch;
  const draw = new Draw(0x67707565 + n);
  const prefixLens = new Int32Array(n);
  const seqLens = new Int32Array(n);
  const lastLoc = new Int32Array(n);
  const extendMean = Math.max(1, Math.floor(kExtendTokensPerBatch / n));
  let newPages = 0;
  let prefixPage = kFirstPage;
  for (let i = 0; i < n; i++) {
    const pre = draw.chance(kFreshShare) ? 0 : draw.int(1, kPrefixTokensMax);
    const extend = Math.max(1, draw.int(Math.ceil(extendMean / 2), Math.ceil((3 * extendMean) / 2)));
    prefixLens[i] = pre;
    seqLens[i] = pre + extend;
    // Only the page holding the last prefix token matters to the planner.
    lastLoc[i] = pre === 0 ? -1 : prefixPage++ * ps + ((pre - 1) % ps);
    newPages += Math.ceil((pre + extend) / ps) - Math.ceil(pre / ps);
  }
  return { batch: { prefixLens, seqLens, lastLoc }, freePages: scrambledPages(draw, newPages, prefixPage) };
}

/** A decode step and its free list. */
export function drawDecode(args: Geometry & { readonly batch: number }): { batch: DecodeBatch; freePages: Int32Array } {
  const ps = pageSizeOf(args);
  const n = args.batch;
  const draw = new Draw(0x67706463 + n);
  const seqLens = new Int32Array(n);
  const lastLoc = new Int32Array(n);
  let opening = 0;
  for (let i = 0; i < n; i++) {
    const seq = draw.int(1, kSeqTokensMax);
    seqLens[i] = seq;
    lastLoc[i] = seq === 1 ? -1 : (kFirstPage + i) * ps + ((seq - 2) % ps);
    if (Math.ceil(seq / ps) !== Math.ceil((seq - 1) / ps)) opening++;
  }
  return { batch: { seqLens, lastLoc }, freePages: scrambledPages(draw, opening, kFirstPage + n) };
}

function gpuRunner(prepared: PreparedKernel, emptyRep: EncodeRep): VariantRunner {
  return { kind: 'gpu', rep: (encoder, timestamps) => prepared.encode(encoder, timestamps), emptyRep };
}

function planCase(op: 'plan-extend' | 'plan-decode', args: Geometry & { readonly batch: number }): GpuCase {
  const label = op === 'plan-extend' ? 'planExtend' : 'planDecode';
  return {
    name: `gpu-kernels:${op}:${expandName(`${label} gpu/cpu $batch $dcp×$kernelPage`, args)}`,
    package: 'gpu-kernels',
    op,
    file: kFile,
    args,
    kind: 'gpu-vs-cpu',
    baseline: 'cpu',
    compared: 'gpu',
    setup(kernels, emptyRep, aa) {
      const ps = pageSizeOf(args);
      let cpu: VariantRunner;
      let prepared: PreparedKernel | null;
      if (op === 'plan-extend') {
        const { batch, freePages } = drawExtend(args);
        cpu = { kind: 'cpu', fn: () => do_not_optimize(planExtend(batch, ps, freePages)) };
        prepared = kernels.extend(batch, ps, freePages);
      } else {
        const { batch, freePages } = drawDecode(args);
        cpu = { kind: 'cpu', fn: () => do_not_optimize(planDecode(batch, ps, freePages)) };
        prepared = kernels.decode(batch, ps, freePages);
      }
      if (prepared === null) throw new Error(`${label} ${JSON.stringify(args)}: the drawn free list is short (a bench bug)`);
      const gpu = prepared;
      return { baseline: cpu, compared: aa ? cpu : gpuRunner(gpu, emptyRep), destroy: () => gpu.destroy() };
    },
  };
}

function freeCase(args: { readonly pages: number }): GpuCase {
  return {
    name: `gpu-kernels:free-batch:${expandName('freeBatch $pages', args)}`,
    package: 'gpu-kernels',
    op: 'free-batch',
    file: kFile,
    args,
    kind: 'checks',
    baseline: 'checks-off',
    compared: 'checks-on',
    setup(kernels, emptyRep, aa) {
      const device = kernels.context.device;
      const count = args.pages;
      // Twice the batch's pages are held, so the batch is a scattered subset of the pool.
      const numPages = 2 * count;
      const draw = new Draw(0x67706672 + count);
      const held = scrambledPages(draw, numPages, kFirstPage);
      const pages = held.subarray(0, count);
      const state = new GpuAllocKernels(kernels.context).createPageState(numPages, held);
      const stateBytes = (numPages + 1) * 4;
      const pristine = device.createBuffer({ size: stateBytes, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
      const seed = device.createCommandEncoder();
      seed.copyBufferToBuffer(state.pageState, 0, pristine, 0, stateBytes);
      device.queue.submit([seed.finish()]);
      const unchecked = kernels.free(state, pages, false);
      const checked = kernels.free(state, pages, aa ? false : true);
      // Every repetition frees the same held pages: the page states are restored and the counters
      // cleared first — outside the timestamps, inside the wall time (the same for both variants).
      const restore = (encoder: GPUCommandEncoder): void => {
        encoder.copyBufferToBuffer(pristine, 0, state.pageState, 0, stateBytes);
        encoder.clearBuffer(state.counters);
      };
      const runner = (prepared: PreparedKernel): VariantRunner => ({
        kind: 'gpu',
        rep: (encoder, timestamps) => {
          restore(encoder);
          prepared.encode(encoder, timestamps);
        },
        emptyRep: (encoder, timestamps) => {
          restore(encoder);
          emptyRep(encoder, timestamps);
        },
      });
      return {
        baseline: runner(unchecked),
        compared: runner(checked),
        destroy: () => {
          unchecked.destroy();
          checked.destroy();
          pristine.destroy();
          state.destroy();
        },
      };
    },
  };
}

/** Every GPU case: the full sweep, or the quick points. */
export function gpuCases(quick: boolean): GpuCase[] {
  const batches = quick ? kBatchesQuick : kBatches;
  const geometries = quick ? kPlanGeometriesQuick : kPlanGeometries;
  const plans = crossProduct({ batch: batches }, geometries);
  return [
    ...plans.map((args) => planCase('plan-extend', args)),
    ...plans.map((args) => planCase('plan-decode', args)),
    ...(quick ? kFreePagesQuick : kFreePages).map((pages) => freeCase({ pages })),
  ];
}
