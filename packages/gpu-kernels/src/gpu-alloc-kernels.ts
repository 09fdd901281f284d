import { ArgumentError, countDecodePages, countExtendPages, countExtendTokens, type DecodeBatch, type ExtendBatch } from '@kvfuzz/allocator-core';
import type { GpuContext } from './acquire-device.js';
import { GpuBatchError } from './errors.js';
import { KernelPipelines, storageBuffer, uniformBuffer } from './internal/kernel-resources.js';
import { kBatchSizeMax, kOutputSlotsMax, kWorkgroupSize } from './kernel-limits.js';
import type { KernelBug } from './wgsl-sources.js';

/** What a GPU extend or decode plan returns: the CPU reference's `{ slots, pageCount }`. */
export interface GpuPlan {
  readonly slots: Int32Array;
  readonly pageCount: number;
}

/** The outcome of a batch free on the GPU. */
export interface GpuFreeResult {
  /** Pages given back, in the order the free list got them (any order within the batch). */
  readonly freed: number[];
  /** Pages that were not held, were named twice, or lie outside the pool (checked kernel only). */
  readonly reported: number[];
}

/** `Σ floor(seq / ps) − floor(pre / ps)`: the count the planted `page-count-floor` bug checks capacity with. */
function flooredExtendPages(prefixLens: ArrayLike<number>, seqLens: ArrayLike<number>, pageSize: number): number {
  let pageCount = 0;
  for (let i = 0; i < prefixLens.length; i++) pageCount += Math.floor((seqLens[i] as number) / pageSize) - Math.floor((prefixLens[i] as number) / pageSize);
  return pageCount;
}

const u32 = (values: ArrayLike<number>): Uint32Array<ArrayBuffer> => Uint32Array.from(values);
const i32 = (values: ArrayLike<number>): Int32Array<ArrayBuffer> => Int32Array.from(values);

/**
 * The engine's allocation kernels on WebGPU: `planExtend` and `planDecode` with the same inputs,
 * outputs and `null`-when-short behaviour as allocator-core's CPU reference, and a batch free into
 * a GPU-resident free list with an exactly-once check. Buffers are created per call and destroyed
 * in `finally`; pipelines are compiled once per page size.
 */
export class GpuAllocKernels {
  private readonly pipelines: KernelPipelines;

  /**
   * @param context - from `acquireDevice()`.
   * @param bug - a planted kernel bug, for the differential tests' kill check.
   */
  constructor(
    readonly context: GpuContext,
    readonly bug: KernelBug = 'none',
  ) {
    this.pipelines = new KernelPipelines(context.device, bug);
  }

  /**
   * The extend layout for a batch against a free list, computed on the GPU; `null` when the free
   * list is short (counted on the CPU first, as the engine does).
   *
   * @throws ArgumentError when arrays differ in length or a request has `seq < prefix`.
   * @throws GpuBatchError past the kernels' limits.
   */
  async planExtend(batch: ExtendBatch, pageSize: number, freePages: ArrayLike<number>): Promise<GpuPlan | null> {
    const { prefixLens, seqLens, lastLoc } = batch;
    if (seqLens.length !== prefixLens.length || lastLoc.length !== prefixLens.length) {
      throw new ArgumentError(`extend batch arrays differ in length: prefixLens ${prefixLens.length}, seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`);
    }
    for (let i = 0; i < prefixLens.length; i++) {
      if (!((seqLens[i] as number) >= (prefixLens[i] as number))) throw new ArgumentError(`request ${i}: seqLens ${String(seqLens[i])} < prefixLens ${String(prefixLens[i])}`);
    }
    const pageCount = countExtendPages(prefixLens, seqLens, pageSize);
    // Planted: page-count-floor checks the floored count, which the kernel uses too.
    const checkedCount = this.bug === 'page-count-floor' ? flooredExtendPages(prefixLens, seqLens, pageSize) : pageCount;
    if (checkedCount > freePages.length && this.bug !== 'capacity-unchecked') return null;
    return this.run(prefixLens, seqLens, lastLoc, pageSize, freePages, countExtendTokens(prefixLens, seqLens), checkedCount);
  }

  /** The decode layout on the GPU: an extend of one token per request with `pre = seq − 1`. */
  async planDecode(batch: DecodeBatch, pageSize: number, freePages: ArrayLike<number>): Promise<GpuPlan | null> {
    const { seqLens, lastLoc } = batch;
    if (lastLoc.length !== seqLens.length) throw new ArgumentError(`decode batch arrays differ in length: seqLens ${seqLens.length}, lastLoc ${lastLoc.length}`);
    for (let i = 0; i < seqLens.length; i++) if (!((seqLens[i] as number) >= 1)) throw new ArgumentError(`request ${i}: seqLens ${String(seqLens[i])} < 1`);
    const pageCount = countDecodePages(seqLens, pageSize);
    if (pageCount > freePages.length && this.bug !== 'capacity-unchecked') return null;
    const prefixLens = Array.from(seqLens, (s) => s - 1);
    return this.run(prefixLens, seqLens, lastLoc, pageSize, freePages, seqLens.length, pageCount);
  }

  /**
   * Gives `pages` back into the GPU free list of `state`. The checked kernel swaps each page's
   * state from held to free atomically, so a page not held — or named twice in the batch — is
   * reported by id instead of freed; the unchecked kernel frees whatever it is given.
   */
  async freeBatch(state: GpuPageState, pages: ArrayLike<number>, checked: boolean): Promise<GpuFreeResult> {
    const device = this.context.device;
    if (pages.length === 0) return { freed: [], reported: [] };
    if (pages.length > kOutputSlotsMax) throw new GpuBatchError(`free batch of ${pages.length} pages exceeds ${kOutputSlotsMax}`);
    const pipeline = this.pipelines.freeFor(checked && this.bug !== 'free-unchecked');
    const created: GPUBuffer[] = [];
    try {
      const input = storageBuffer(this.context.device, u32(pages), created, false);
      const reported = storageBuffer(this.context.device, new Uint32Array(pages.length), created, true);
      const counters = state.counters;
      // Each batch reports afresh; the free list's length carries over.
      device.queue.writeBuffer(counters, 4, new Uint32Array([0]));
      const params = uniformBuffer(this.context.device, [pages.length], created);
      const bind = device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [input, state.pageState, state.freeList, counters, reported, params].map((buffer, binding) => ({ binding, resource: { buffer } })),
      });
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bind);
      pass.dispatchWorkgroups(Math.ceil(pages.length / kWorkgroupSize));
      pass.end();
      device.queue.submit([encoder.finish()]);
      const [count, reportedCount] = Array.from(await this.read(counters, 2, created));
      const reportedPages = Array.from(await this.read(reported, Math.min(reportedCount ?? 0, pages.length), created));
      // The list holds every page once; only an unchecked free of pages not held counts past its end,
      // and the kernel drops those entries, so read no further than the list is long.
      const listedNow = Math.min(count ?? 0, state.capacity);
      const freed = Array.from(await this.readRange(state.freeList, state.listed, listedNow - state.listed, created));
      // The counter on the GPU keeps counting from where the last batch left it.
      state.listed = listedNow;
      return { freed, reported: reportedPages };
    } finally {
      for (const buffer of created) buffer.destroy();
    }
  }

  /** Per-page states and a free list on the GPU for `numPages` pages (page 0 reserved). */
  createPageState(numPages: number, heldPages: ArrayLike<number>): GpuPageState {
    return new GpuPageState(this.context.device, numPages, heldPages);
  }

  private async run(
    prefixLens: ArrayLike<number>,
    seqLens: ArrayLike<number>,
    lastLoc: ArrayLike<number>,
    pageSize: number,
    freePages: ArrayLike<number>,
    totalSlots: number,
    pageCount: number,
  ): Promise<GpuPlan> {
    const batchSize = prefixLens.length;
    if (batchSize > kBatchSizeMax) throw new GpuBatchError(`batch of ${batchSize} requests exceeds ${kBatchSizeMax}`);
    if (totalSlots > kOutputSlotsMax) throw new GpuBatchError(`extend of ${totalSlots} slots exceeds ${kOutputSlotsMax}`);
    if (batchSize === 0 || totalSlots === 0) return { slots: new Int32Array(0), pageCount };
    const device = this.context.device;
    const { scan, fill } = this.pipelines.pagedFor(pageSize);
    const created: GPUBuffer[] = [];
    try {
      const pre = storageBuffer(this.context.device, u32(prefixLens), created, false);
      const seq = storageBuffer(this.context.device, u32(seqLens), created, false);
      const last = storageBuffer(this.context.device, i32(lastLoc), created, false);
      const slotOffsets = storageBuffer(this.context.device, new Uint32Array(batchSize + 1), created, true);
      const pageOffsets = storageBuffer(this.context.device, new Uint32Array(batchSize + 1), created, true);
      const free = storageBuffer(this.context.device, u32(freePages.length === 0 ? [0] : freePages), created, false);
      const out = storageBuffer(this.context.device, new Int32Array(totalSlots), created, true);
      const params = uniformBuffer(this.context.device, [batchSize, totalSlots], created);
      const scanBind = device.createBindGroup({
        layout: scan.getBindGroupLayout(0),
        entries: [pre, seq, slotOffsets, pageOffsets, params].map((buffer, binding) => ({ binding, resource: { buffer } })),
      });
      const fillBind = device.createBindGroup({
        layout: fill.getBindGroupLayout(0),
        entries: [pre, seq, last, slotOffsets, pageOffsets, free, out, params].map((buffer, binding) => ({ binding, resource: { buffer } })),
      });
      const encoder = device.createCommandEncoder();
      const scanPass = encoder.beginComputePass();
      scanPass.setPipeline(scan);
      scanPass.setBindGroup(0, scanBind);
      scanPass.dispatchWorkgroups(1);
      scanPass.end();
      const fillPass = encoder.beginComputePass();
      fillPass.setPipeline(fill);
      fillPass.setBindGroup(0, fillBind);
      fillPass.dispatchWorkgroups(Math.ceil(totalSlots / kWorkgroupSize));
      fillPass.end();
      device.queue.submit([encoder.finish()]);
      const slots = new Int32Array((await this.read(out, totalSlots, created)).buffer);
      return { slots, pageCount };
    } finally {
      for (const buffer of created) buffer.destroy();
    }
  }

  private read(source: GPUBuffer, words: number, created: GPUBuffer[]): Promise<Uint32Array> {
    return this.readRange(source, 0, words, created);
  }

  private async readRange(source: GPUBuffer, fromWord: number, words: number, created: GPUBuffer[]): Promise<Uint32Array> {
    if (words <= 0) return new Uint32Array(0);
    const device = this.context.device;
    const staging = device.createBuffer({ size: words * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    created.push(staging);
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(source, fromWord * 4, staging, 0, words * 4);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const copy = new Uint32Array(staging.getMappedRange().slice(0));
    staging.unmap();
    return copy;
  }
}

/** Per-page states (0 free, 1 held, 2 reserved) and the free list the batch free appends to, on the GPU. */
export class GpuPageState {
  readonly pageState: GPUBuffer;
  readonly freeList: GPUBuffer;
  /** [0]: entries on the free list; [1]: pages the last batch reported. */
  readonly counters: GPUBuffer;
  /** Entries the free list holds (mirrors the GPU counter between batches, up to `capacity`). */
  listed = 0;
  /** Entries the free list has room for: one per page id, page 0 included. */
  readonly capacity: number;

  constructor(
    device: GPUDevice,
    readonly numPages: number,
    heldPages: ArrayLike<number>,
  ) {
    const states = new Uint32Array(numPages + 1);
    states[0] = 2;
    for (let i = 0; i < heldPages.length; i++) states[heldPages[i] as number] = 1;
    this.pageState = device.createBuffer({ size: states.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    device.queue.writeBuffer(this.pageState, 0, states);
    this.capacity = numPages + 1;
    this.freeList = device.createBuffer({ size: this.capacity * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
    this.counters = device.createBuffer({ size: 8, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    device.queue.writeBuffer(this.counters, 0, new Uint32Array(2));
  }

  destroy(): void {
    this.pageState.destroy();
    this.freeList.destroy();
    this.counters.destroy();
  }
}
