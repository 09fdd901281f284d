import { PagedAllocator, TokenAllocator, type BaseAllocator } from '@kvfuzz/allocator-core';
import { kGpuKernelMutants } from '../../../mutants/gpu-kernels/catalogue.js';
import { PageLedger } from '../../ledger/page-ledger.js';
import type { ModelDefinition } from '../model-definition.js';
import { gpuCommandMixArbitrary, kGpuCommandsPerRunMax } from './gpu-commands.js';
import { drainGpuKernels } from './gpu-drain.js';
import { formatGpuGeometry, gpuGeometryArbitrary, gpuGeometrySchema, gpuPageSizeOf, type GpuKernelsGeometry } from './gpu-geometry.js';
import type { GpuKernelsModel, GpuKernelsOptions, GpuKernelsReal } from './gpu-model-state.js';
import { kGpuCommands } from './gpu-program.js';
import { threadKernels } from './thread-kernels.js';

/** The CPU reference for a geometry: the token allocator at page size 1, else the paged allocator (no staging). */
export function newCpuAllocator(g: GpuKernelsGeometry): BaseAllocator {
  const config = { sizeTokens: g.poolPages * gpuPageSizeOf(g), kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: false, checks: g.checks };
  return gpuPageSizeOf(g) === 1 ? new TokenAllocator(config) : new PagedAllocator(config);
}

/** The model side of a fresh run: an empty ledger over the geometry's pool, nothing live. */
export function newGpuKernelsModel(g: GpuKernelsGeometry): GpuKernelsModel {
  return { geometry: g, pageSize: gpuPageSizeOf(g), ledger: new PageLedger(gpuPageSizeOf(g), g.poolPages), live: [], nextId: 0, executed: 0 };
}

/**
 * The lock-step model: the CPU allocator and the WebGPU kernels on the same batches and the same
 * free pages, on this thread's device (each worker thread makes its own). Exact: the GPU must hand
 * out the reference's slots in its order.
 */
export const gpuKernelsModel: ModelDefinition<GpuKernelsGeometry, GpuKernelsModel, GpuKernelsReal, GpuKernelsOptions> = {
  name: 'gpu-kernels',
  async: true,
  geometry: { schema: gpuGeometrySchema, arbitrary: (fixed) => gpuGeometryArbitrary(fixed), format: formatGpuGeometry },
  mix: () => gpuCommandMixArbitrary,
  commands: kGpuCommands,
  commandsPerRunMax: kGpuCommandsPerRunMax,
  // The extend draw reads the page size.
  arbitraryKey: (g) => String(gpuPageSizeOf(g)),
  reference: { bug: 'none' },
  modeOf: () => 'exact',
  setup: async (g, o) => ({ model: newGpuKernelsModel(g), real: { allocator: newCpuAllocator(g), kernels: await threadKernels(o.bug) } }),
  drain: drainGpuKernels,
  // A missing adapter is no finding of the model: the device is acquired before the first run, so it rejects there.
  prepare: async (o) => void (await threadKernels(o.bug)),
  plantedBugs: kGpuKernelMutants.map((m) => ({ name: m.name, mechanism: m.mechanism, options: { bug: m.name } })),
};
