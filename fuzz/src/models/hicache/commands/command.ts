import { defineCommand, type CommandBuilder, type CommandDefinition, type ModelCommand } from '../../model-command.js';
import type { HiCacheGeometry } from '../hicache-geometry.js';
import type { HiCacheModel, HiCacheOptions, HiCacheReal } from '../hicache-state.js';

/** A HiCache command (a tier command, or a lifecycle command run on the two-tier state), as a run draws it and a program lists it. */
export type HiCacheCommand = ModelCommand<HiCacheModel, HiCacheReal>;

/** Defines a tier command of the HiCache model (see {@link CommandDefinition}); the argument types follow its schema. */
export function hiCacheCommand<A extends readonly unknown[]>(
  definition: CommandDefinition<HiCacheGeometry, HiCacheModel, HiCacheReal, HiCacheOptions, A>,
): CommandBuilder<HiCacheGeometry, HiCacheModel, HiCacheReal, HiCacheOptions, A> {
  return defineCommand(definition);
}
