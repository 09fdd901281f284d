import { defineCommand, type CommandBuilder, type CommandDefinition, type ModelCommand } from '../../model-command.js';
import type { AllocatorModel, AllocatorOptions, AllocatorReal } from '../allocator-model-state.js';
import type { AllocatorGeometry } from '../geometry.js';

/** An allocator model command, as a run draws it and a program lists it. */
export type AllocatorCommand = ModelCommand<AllocatorModel, AllocatorReal>;

/** Defines an allocator model command (see {@link CommandDefinition}); the argument types follow its schema. */
export function allocatorCommand<A extends readonly unknown[]>(
  definition: CommandDefinition<AllocatorGeometry, AllocatorModel, AllocatorReal, AllocatorOptions, A>,
): CommandBuilder<AllocatorGeometry, AllocatorModel, AllocatorReal, AllocatorOptions, A> {
  return defineCommand(definition);
}
