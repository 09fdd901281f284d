import fc from 'fast-check';
import { PagedAllocator, TokenAllocator, type BaseAllocator } from '@kvfuzz/allocator-core';
import type { KernelBug } from '@kvfuzz/gpu-kernels';
import { PageLedger } from '../../ledger/page-ledger.js';
import { runAsyncCampaign, runAsyncProgram, type AsyncModelSpec } from '../run-async-model.js';
import { formatFailure, type CampaignOptions, type ModelRunReport } from '../run-model.js';
import type { GpuKernelsCommand } from './commands/gpu-command.js';
import { gpuCommandArbitraries, gpuCommandMixArbitrary, kGpuCommandsPerRunMax } from './gpu-commands.js';
import { drainGpuKernels } from './gpu-drain.js';
import { formatGpuGeometry, gpuGeometryArbitrary, gpuPageSizeOf, type GpuKernelsGeometry } from './gpu-geometry.js';
import type { GpuKernelsModel, GpuKernelsReal } from './gpu-model-state.js';
import { threadKernels } from './thread-kernels.js';

/** How a campaign against the lock-step GPU model runs. */
export interface GpuKernelsModelOptions extends CampaignOptions {
  /**
   * A planted kernel bug the model must catch.
   * @defaultValue 'none'
   */
  readonly bug?: KernelBug;
  /** Geometry fields to hold fixed instead of drawing. */
  readonly geometry?: Partial<GpuKernelsGeometry>;
  /** @defaultValue kGpuCommandsPerRunMax */
  readonly maxCommands?: number;
}

/** The CPU reference for a geometry: the token allocator at page size 1, else the paged allocator (no staging). */
export function newCpuAllocator(g: GpuKernelsGeometry): BaseAllocator {
  const config = { sizeTokens: g.poolPages * gpuPageSizeOf(g), kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: false, checks: g.checks };
  return gpuPageSizeOf(g) === 1 ? new TokenAllocator(config) : new PagedAllocator(config);
}

/** The model side of a fresh run: an empty ledger over the geometry's pool, nothing live. */
export function newGpuKernelsModel(g: GpuKernelsGeometry): GpuKernelsModel {
  return { geometry: g, pageSize: gpuPageSizeOf(g), ledger: new PageLedger(gpuPageSizeOf(g), g.poolPages), live: [], nextId: 0, executed: 0 };
}

/** The lock-step model as the asynchronous campaign runner takes it; the GPU kernels are this thread's. */
export function gpuKernelsModelSpec(
  bug: KernelBug = 'none',
  fixed: Partial<GpuKernelsGeometry> = {},
  maxCommands: number = kGpuCommandsPerRunMax,
): AsyncModelSpec<GpuKernelsGeometry, GpuKernelsModel, GpuKernelsReal> {
  return {
    arbitrary: fc
      .tuple(gpuGeometryArbitrary(fixed), gpuCommandMixArbitrary)
      .chain(([g, mix]) => fc.tuple(fc.constant(g), fc.commands(gpuCommandArbitraries(g, mix), { maxCommands, size: 'max' }))),
    setup: async (g) => ({ model: newGpuKernelsModel(g), real: { allocator: newCpuAllocator(g), kernels: await threadKernels(bug) } }),
    drain: drainGpuKernels,
    executed: (m) => m.executed,
  };
}

/** Runs one program (a geometry and a command list) and drains; rejects with what the oracle finds. */
export async function runGpuKernelsProgram(g: GpuKernelsGeometry, commands: Iterable<GpuKernelsCommand>, bug: KernelBug = 'none'): Promise<GpuKernelsModel> {
  await threadKernels(bug);
  return runAsyncProgram(gpuKernelsModelSpec(bug), g, commands);
}

/**
 * Runs the lock-step model: random geometries and batches on the CPU allocator and the GPU kernels
 * alike, the ledger as the oracle, a drain at the end of every run. Never rejects for a failure: it
 * reports it. Rejects with NoAdapterError when there is no WebGPU adapter.
 */
export async function runGpuKernelsModel(options: GpuKernelsModelOptions = {}): Promise<ModelRunReport<GpuKernelsGeometry>> {
  // A missing adapter is no finding of the model: acquire the device before the first run, so it rejects here.
  await threadKernels(options.bug);
  return runAsyncCampaign(gpuKernelsModelSpec(options.bug, options.geometry, options.maxCommands), options);
}

/** A failure as the text a person reads: header (seed, path, geometry), the rule, and the program. */
export function formatGpuKernelsFailure(report: ModelRunReport<GpuKernelsGeometry>, target = 'gpu-kernels'): string {
  return formatFailure(report, target, formatGpuGeometry);
}
