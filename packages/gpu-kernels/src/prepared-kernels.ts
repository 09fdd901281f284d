/**
 * The timing hook of the kernels: a kernel call with its inputs uploaded once, whose passes can
 * be encoded again and again — into one command buffer many times (wall-clock timing over many
 * dispatches), or with GPU timestamps written at the first pass's start and the last pass's end.
 * The passes, pipelines (the same WGSL sources, page size baked in) and bindings are those
 * `GpuAllocKernels` submits per call; what a prepared call leaves out is the per-call upload and
 * read-back, which is what a kernel time should not include.
 *
 * @packageDocumentation
 */
import { ArgumentError, countDecodePages, countExtendPages, countExtendTokens, type DecodeBatch, type ExtendBatch } from '@kvfuzz/allocator-core';
import type { GpuContext } from './acquire-device.js';
import { GpuBatchError } from './errors.js';
import type { GpuPageState } from './gpu-alloc-kernels.js';
import { KernelPipelines, storageBuffer, uniformBuffer } from './internal/kernel-resources.js';
import { kBatchSizeMax, kOutputSlotsMax, kWorkgroupSize } from './kernel-limits.js';

/** Where a prepared call writes its two GPU timestamps (needs the 'timestamp-query' feature). */
export interface KernelTimestamps {
  /** A query set of type `timestamp`. */
  readonly querySet: GPUQuerySet;
  /** Query index written when the call's first pass begins. */
  readonly beginIndex: number;
  /** Query index written when the call's last pass ends. */
  readonly endIndex: number;
}

/** A kernel call whose inputs are on the GPU, ready to be encoded any number of times. */
export interface PreparedKernel {
  /** Compute passes one call encodes (extend and decode: scan and fill; free: one). */
  readonly passCount: number;
  /** The output a one-shot call would read back: the slots of a plan, the reported pages of a free. */
  readonly output: GPUBuffer;
  /**
   * Records the call's passes into `encoder`; nothing is submitted.
   *
   * @param timestamps - where to write the start of the first pass and the end of the last.
   * @throws ArgumentError for timestamps on a device without 'timestamp-query'.
   */
  encode(encoder: GPUCommandEncoder, timestamps?: KernelTimestamps): void;
  /** Destroys the buffers the call created (a free's page state stays with its owner). */
  destroy(): void;
}

interface Pass {
  readonly pipeline: GPUComputePipeline;
  readonly bind: GPUBindGroup;
  readonly workgroups: number;
}

const u32 = (values: ArrayLike<number>): Uint32Array<ArrayBuffer> => Uint32Array.from(values);
const i32 = (values: ArrayLike<number>): Int32Array<ArrayBuffer> => Int32Array.from(values);

class PreparedPasses implements PreparedKernel {
  constructor(
    private readonly context: GpuContext,
    private readonly passes: readonly Pass[],
    private readonly created: readonly GPUBuffer[],
    readonly output: GPUBuffer,
  ) {}

  get passCount(): number {
    return this.passes.length;
  }

  encode(encoder: GPUCommandEncoder, timestamps?: KernelTimestamps): void {
    if (timestamps !== undefined && !this.context.timestampQuery) throw new ArgumentError("timestamps need a device with the 'timestamp-query' feature (the adapter does not offer it)");
    const last = this.passes.length - 1;
    this.passes.forEach((p, k) => {
      const descriptor: GPUComputePassDescriptor = {};
      if (timestamps !== undefined && (k === 0 || k === last)) {
        descriptor.timestampWrites = {
          querySet: timestamps.querySet,
          ...(k === 0 ? { beginningOfPassWriteIndex: timestamps.beginIndex } : {}),
          ...(k === last ? { endOfPassWriteIndex: timestamps.endIndex } : {}),
        };
      }
      const pass = encoder.beginComputePass(descriptor);
      pass.setPipeline(p.pipeline);
      pass.setBindGroup(0, p.bind);
      pass.dispatchWorkgroups(p.workgroups);
      pass.end();
    });
  }

  destroy(): void {
    for (const buffer of this.created) buffer.destroy();
  }
}

/**
 * Prepares the extend, decode and batch-free kernels of `GpuAllocKernels` for repeated dispatch
 * (benches). Inputs are validated as the one-shot calls validate them.
 */
export class PreparedKernels {
  private readonly pipelines: KernelPipelines;

  /** @param context - from `acquireDevice()`. */
  constructor(readonly context: GpuContext) {
    this.pipelines = new KernelPipelines(context.device, 'none');
  }

  /**
   * The extend kernels over `batch` against `freePages`; `null` when the free list is short.
   *
   * @throws ArgumentError when arrays differ in length or a request has `seq < prefix`.
   * @throws GpuBatchError for an empty call or one past the kernels' limits.
   */
  extend(batch: ExtendBatch, pageSize: number, freePages: ArrayLike<number>): PreparedKernel | null {
    const { prefixLens, seqLens, lastLoc } = batch;
    if (seqLens.length !== prefixLens.length || lastLoc.length !== prefixLens.length) {
      throw new ArgumentError(`extend batch arrays differ in length: prefixLens ${prefixLens.length}, seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`);
    }
    for (let i = 0; i < prefixLens.length; i++) {
      if (!((seqLens[i] as number) >= (prefixLens[i] as number))) throw new ArgumentError(`request ${i}: seqLens ${String(seqLens[i])} < prefixLens ${String(prefixLens[i])}`);
    }
    if (countExtendPages(prefixLens, seqLens, pageSize) > freePages.length) return null;
    return this.plan(prefixLens, seqLens, lastLoc, pageSize, freePages, countExtendTokens(prefixLens, seqLens));
  }

  /** The decode kernels (an extend of one token per request with `pre = seq − 1`); `null` when short. */
  decode(batch: DecodeBatch, pageSize: number, freePages: ArrayLike<number>): PreparedKernel | null {
    const { seqLens, lastLoc } = batch;
    if (lastLoc.length !== seqLens.length) throw new ArgumentError(`decode batch arrays differ in length: seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`);
    for (let i = 0; i < seqLens.length; i++) if (!((seqLens[i] as number) >= 1)) throw new ArgumentError(`request ${i}: seqLens ${String(seqLens[i])} < 1`);
    if (countDecodePages(seqLens, pageSize) > freePages.length) return null;
    return this.plan(Array.from(seqLens, (s) => s - 1), seqLens, lastLoc, pageSize, freePages, seqLens.length);
  }

  /**
   * The batch free of `pages` into `state`. Each dispatch works on the state as it then is, so a
   * caller repeating one batch restores `state.pageState` and clears `state.counters` in between.
   *
   * @throws GpuBatchError for an empty batch or one past the kernels' limits.
   */
  free(state: GpuPageState, pages: ArrayLike<number>, checked: boolean): PreparedKernel {
    if (pages.length === 0) throw new GpuBatchError('a prepared free needs at least one page');
    if (pages.length > kOutputSlotsMax) throw new GpuBatchError(`free batch of ${pages.length} pages exceeds ${kOutputSlotsMax}`);
    const pipeline = this.pipelines.freeFor(checked);
    const created: GPUBuffer[] = [];
    // Every buffer here is readable back (COPY_SRC): a test or bench may read any of them.
    const input = storageBuffer(this.context.device, u32(pages), created, true);
    const reported = storageBuffer(this.context.device, new Uint32Array(pages.length), created, true);
    const params = uniformBuffer(this.context.device, [pages.length], created);
    const bind = this.context.device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [input, state.pageState, state.freeList, state.counters, reported, params].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    return new PreparedPasses(this.context, [{ pipeline, bind, workgroups: Math.ceil(pages.length / kWorkgroupSize) }], created, reported);
  }

  private plan(prefixLens: ArrayLike<number>, seqLens: ArrayLike<number>, lastLoc: ArrayLike<number>, pageSize: number, freePages: ArrayLike<number>, totalSlots: number): PreparedKernel {
    const batchSize = prefixLens.length;
    if (batchSize > kBatchSizeMax) throw new GpuBatchError(`batch of ${batchSize} requests exceeds ${kBatchSizeMax}`);
    if (totalSlots > kOutputSlotsMax) throw new GpuBatchError(`extend of ${totalSlots} slots exceeds ${kOutputSlotsMax}`);
    // The one-shot call skips the GPU for an empty call; there is nothing to time.
    if (batchSize === 0 || totalSlots === 0) throw new GpuBatchError(`a prepared call needs work: ${batchSize} requests, ${totalSlots} new slots`);
    const device = this.context.device;
    const { scan, fill } = this.pipelines.pagedFor(pageSize);
    const created: GPUBuffer[] = [];
    // Every buffer here is readable back (COPY_SRC): a test or bench may read any of them.
    const pre = storageBuffer(this.context.device, u32(prefixLens), created, true);
    const seq = storageBuffer(this.context.device, u32(seqLens), created, true);
    const last = storageBuffer(this.context.device, i32(lastLoc), created, true);
    const slotOffsets = storageBuffer(this.context.device, new Uint32Array(batchSize + 1), created, true);
    const pageOffsets = storageBuffer(this.context.device, new Uint32Array(batchSize + 1), created, true);
    const free = storageBuffer(this.context.device, u32(freePages.length === 0 ? [0] : freePages), created, true);
    const out = storageBuffer(this.context.device, new Int32Array(totalSlots), created, true);
    const params = uniformBuffer(this.context.device, [batchSize, totalSlots], created);
    const bindOf = (pipeline: GPUComputePipeline, buffers: GPUBuffer[]): GPUBindGroup =>
      device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })) });
    return new PreparedPasses(
      this.context,
      [
        { pipeline: scan, bind: bindOf(scan, [pre, seq, slotOffsets, pageOffsets, params]), workgroups: 1 },
        { pipeline: fill, bind: bindOf(fill, [pre, seq, last, slotOffsets, pageOffsets, free, out, params]), workgroups: Math.ceil(totalSlots / kWorkgroupSize) },
      ],
      created,
      out,
    );
  }
}
