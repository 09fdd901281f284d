import { defineCommand, type CommandBuilder, type CommandDefinition, type ModelCommand } from '../../model-command.js';
import type { PrefixGeometry } from '../geometry.js';
import type { PrefixModel, PrefixReal } from '../prefix-model-state.js';

/** A request-lifecycle command, as a run draws it and a program lists it. */
export type PrefixCommand = ModelCommand<PrefixModel, PrefixReal>;

/**
 * Defines a request-lifecycle command (see {@link CommandDefinition}); the argument types follow
 * its schema. Its draws read no campaign options, so the HiCache model, whose state extends this
 * one's, lists the same commands.
 */
export function prefixCommand<A extends readonly unknown[]>(
  definition: CommandDefinition<PrefixGeometry, PrefixModel, PrefixReal, unknown, A>,
): CommandBuilder<PrefixGeometry, PrefixModel, PrefixReal, unknown, A> {
  return defineCommand(definition);
}
