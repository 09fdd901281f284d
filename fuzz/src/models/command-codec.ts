import type { z } from 'zod';
import { BadInput } from '../bad-input.js';
import { describeZodIssue } from '../text/describe-zod-issue.js';
import { inertLine } from '../text/inert-text.js';
import type { CommandData } from './command-data.js';

/** One builder of a model's `program.ts`: the schema of its argument tuple, and the builder. */
export interface CommandCodecEntry<C> {
  readonly args: z.ZodType<readonly unknown[]>;
  readonly build: (...args: never[]) => C;
}

/** A model's builders by name: how its commands are rebuilt from data, with nothing evaluated. */
export type CommandCodec<C> = Readonly<Record<string, CommandCodecEntry<C>>>;

/**
 * One codec entry, its builder typed by the schema, so a table cannot pair a builder with
 * arguments it does not take.
 */
export function codecEntry<A extends readonly unknown[], C>(args: z.ZodType<A>, build: (...a: NoInfer<A>) => C): CommandCodecEntry<C> {
  return { args, build: build as unknown as (...args: never[]) => C };
}

/**
 * Rebuilds a command from its data: the builder named by `op`, called with the arguments once
 * its schema has checked them.
 *
 * @param index - the command's position in its program (for the message).
 * @throws BadInput naming the command's index and the problem: an unknown builder, arguments of
 *   the wrong type or out of range.
 */
export function decodeCommand<C>(codec: CommandCodec<C>, data: CommandData, index: number): C {
  const entry = Object.hasOwn(codec, data.op) ? codec[data.op] : undefined;
  if (entry === undefined) throw new BadInput(`command ${index}: ${inertLine(`'${data.op}'`, 80)} is not a command of this target (${Object.keys(codec).join(', ')})`);
  const parsed = entry.args.safeParse(data.args);
  if (!parsed.success) throw new BadInput(`command ${index} (${data.op}): ${describeZodIssue(parsed.error, 'args')}`);
  return entry.build(...(parsed.data as never[]));
}

/** Rebuilds a program from its data; throws BadInput naming the first bad command. */
export function decodeCommands<C>(codec: CommandCodec<C>, data: readonly CommandData[]): C[] {
  return data.map((d, i) => decodeCommand(codec, d, i));
}
