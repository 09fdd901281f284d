import type { BaseAllocator } from '@kvfuzz/allocator-core';
import type { GpuAllocKernels, KernelBug } from '@kvfuzz/gpu-kernels';
import type { PageLedger } from '../../ledger/page-ledger.js';
import type { Holding } from '../allocator/holding.js';
import type { GpuKernelsGeometry } from './gpu-geometry.js';

/** The model's side: the requests the caller drives and the ledger of who holds each page. */
export interface GpuKernelsModel {
  readonly geometry: GpuKernelsGeometry;
  readonly pageSize: number;
  readonly ledger: PageLedger;
  /** Live requests; `row[i]` is the slot of position `i`. Rows here are never empty. */
  live: Holding[];
  nextId: number;
  /** Commands run so far (for throughput statistics). */
  executed: number;
}

/**
 * The real side: the CPU allocator (the reference, whose free list both sides read) and the GPU
 * kernels under test, run in lock-step on the same batches and the same free pages.
 */
export interface GpuKernelsReal {
  readonly allocator: BaseAllocator;
  readonly kernels: GpuAllocKernels;
}

/** What a campaign against the lock-step model runs: the kernels, with a planted bug or without (`'none'`). */
export interface GpuKernelsOptions {
  readonly bug: KernelBug;
}
