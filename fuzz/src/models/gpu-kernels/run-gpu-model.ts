import type { KernelBug } from '@kvfuzz/gpu-kernels';
import { formatModelFailure, runModel, runModelProgram } from '../model-definition.js';
import type { CampaignOptions, ModelRunReport } from '../run-model.js';
import type { GpuKernelsCommand } from './commands/gpu-command.js';
import type { GpuKernelsGeometry } from './gpu-geometry.js';
import { gpuKernelsModel } from './gpu-kernels-model.js';
import type { GpuKernelsModel } from './gpu-model-state.js';

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

/** Runs one program (a geometry and a command list) and drains; rejects with what the oracle finds. */
export async function runGpuKernelsProgram(g: GpuKernelsGeometry, commands: Iterable<GpuKernelsCommand>, bug: KernelBug = 'none'): Promise<GpuKernelsModel> {
  return runModelProgram(gpuKernelsModel, g, commands, { bug });
}

/**
 * Runs the lock-step model: random geometries and batches on the CPU allocator and the GPU kernels
 * alike, the ledger as the oracle, a drain at the end of every run. Never rejects for a failure: it
 * reports it. Rejects with NoAdapterError when there is no WebGPU adapter.
 */
export async function runGpuKernelsModel(options: GpuKernelsModelOptions = {}): Promise<ModelRunReport<GpuKernelsGeometry>> {
  const { bug, ...rest } = options;
  return runModel(gpuKernelsModel, { ...rest, options: bug === undefined ? {} : { bug } });
}

/** A failure as the text a person reads: header (seed, path, geometry), the rule, and the program. */
export function formatGpuKernelsFailure(report: ModelRunReport<GpuKernelsGeometry>, target = 'gpu-kernels'): string {
  return formatModelFailure(gpuKernelsModel, report, target);
}
