import { defineCommand, type CommandBuilder, type CommandDefinition, type ModelCommand } from '../../model-command.js';
import type { GpuKernelsGeometry } from '../gpu-geometry.js';
import type { GpuKernelsModel, GpuKernelsOptions, GpuKernelsReal } from '../gpu-model-state.js';

/** A lock-step command, as a run draws it and a program lists it; its `run` awaits the GPU. */
export type GpuKernelsCommand = ModelCommand<GpuKernelsModel, GpuKernelsReal>;

/** Defines a lock-step command (see {@link CommandDefinition}); the argument types follow its schema. */
export function gpuCommand<A extends readonly unknown[]>(
  definition: CommandDefinition<GpuKernelsGeometry, GpuKernelsModel, GpuKernelsReal, GpuKernelsOptions, A>,
): CommandBuilder<GpuKernelsGeometry, GpuKernelsModel, GpuKernelsReal, GpuKernelsOptions, A> {
  return defineCommand(definition);
}
