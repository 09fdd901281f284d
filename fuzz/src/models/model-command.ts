import fc from 'fast-check';
import type { z } from 'zod';
import type { OpLabel } from '../ledger/op-label.js';
import { codecEntry, type CommandCodec } from './command-codec.js';
import { printCall, type CommandData, type DataCommand, type JsonValue } from './command-data.js';

/** The arguments of a command that takes none, as a draw's arbitrary. */
export function noArgs(): fc.Arbitrary<[]> {
  return fc.constant<[]>([]);
}

/** One way a run draws a command: the mix family whose per-run weight it takes, and its arguments. */
export interface CommandDraw<G, O, A> {
  /** The family of the model's mix; a family weight of 0 switches the draw off for the run. */
  readonly family: string;
  /**
   * Multiplies the family's weight for this draw.
   * @defaultValue 1
   */
  readonly weight?: number;
  /**
   * The arguments for a run of geometry `g` under the campaign's options `o`, or null when this
   * campaign never draws the command (a per-rule report that feeds none of its inputs). It may read
   * only the geometry fields the model's `arbitraryKey` names: the arbitraries are built once per key.
   */
  arbitrary(g: G, o: O): fc.Arbitrary<A> | null;
}

/**
 * A model command, defined once: its builder name and argument schema (the stored form), how runs
 * draw it, and its two methods. The arguments are the command's only data (immutable, JSON), so
 * its printed form, its stored form and what runs cannot drift apart.
 */
export interface CommandDefinition<G, M, R, O, A extends readonly unknown[]> {
  /** The builder's name: what the command prints as and what a stored program's `op` says. */
  readonly name: string;
  /** The schema of the argument tuple a stored command is checked against (broad bounds, never the geometry). */
  readonly args: z.ZodType<A>;
  /** How runs draw it: usually one family; a command may come in shapes of its own. */
  readonly draws: readonly CommandDraw<G, O, A>[];
  /** Pure: may it run in this state? */
  check(m: Readonly<M>, args: A): boolean;
  /**
   * Resolves its picks modulo the live set, calls the implementation, tells the ledger what
   * crossed, compares, updates the model, and runs the checks after a command.
   *
   * @param self - the command itself, for violation messages (it prints only when one is built).
   */
  run(m: M, r: R, args: A, self: OpLabel): void | Promise<void>;
}

/**
 * One command as fast-check runs it: a definition and drawn arguments. Never holds run-time state,
 * so the same instance may run again while shrinking.
 */
export class ModelCommand<M, R> implements DataCommand {
  constructor(
    // Erased to unknown arguments: the definition and its arguments were paired by `build` or the arbitrary.
    readonly definition: CommandDefinition<never, M, R, never, readonly unknown[]>,
    readonly args: readonly unknown[],
  ) {}

  check(m: Readonly<M>): boolean {
    return this.definition.check(m, this.args);
  }

  run(m: M, r: R): void | Promise<void> {
    return this.definition.run(m, r, this.args, this);
  }

  toData(): CommandData {
    return { op: this.definition.name, args: this.args as readonly JsonValue[] };
  }

  /** The call for people, `freeRow(0)`, printed from the stored form. */
  toString(): string {
    return printCall(this.toData());
  }
}

/**
 * A command's builder: called with its arguments it makes the command, so a printed program pastes
 * into a test that imports the builders (`freeRow(0)`); `definition` is the rest of it.
 */
export type CommandBuilder<G, M, R, O, A extends readonly unknown[]> = ((...args: A) => ModelCommand<M, R>) & {
  readonly definition: CommandDefinition<G, M, R, O, A>;
};

/** A builder of a model whose state extends `M` (the HiCache model runs the lifecycle's commands). */
// The bivariant method form lets a lifecycle command stand in a list of the two-tier model's commands.
export interface AnyCommandBuilder<G, M, R, O> {
  (...args: never[]): ModelCommand<M, R>;
  readonly definition: { readonly name: string; readonly args: z.ZodType<readonly unknown[]>; readonly draws: readonly CommandDraw<G, O, readonly unknown[]>[] };
}

/** Makes a command's builder from its definition. */
export function defineCommand<G, M, R, O, A extends readonly unknown[]>(definition: CommandDefinition<G, M, R, O, A>): CommandBuilder<G, M, R, O, A> {
  const erased = definition as unknown as CommandDefinition<never, M, R, never, readonly unknown[]>;
  return Object.assign((...args: A) => new ModelCommand<M, R>(erased, args), { definition });
}

/** A command a model draws in its own way besides (or instead of) the command's own draws. */
export interface CommandEntry<G, M, R, O> {
  readonly builder: AnyCommandBuilder<G, M, R, O>;
  readonly draws: readonly CommandDraw<G, O, readonly unknown[]>[];
}

/** Lists `builder` with draws of this model's own (the HiCache model fills the tree with lifecycle bursts of its own shape). */
export function drawnAs<G, M, R, O, A extends readonly unknown[]>(
  builder: AnyCommandBuilder<G, M, R, O> & { readonly definition: { readonly args: z.ZodType<A> } },
  draws: readonly CommandDraw<G, O, A>[],
): CommandEntry<G, M, R, O> {
  return { builder, draws };
}

/** A model's command list item: a builder with its own draws, or an entry with the model's. */
export type CommandListItem<G, M, R, O> = AnyCommandBuilder<G, M, R, O> | CommandEntry<G, M, R, O>;

/** An item as an entry: a builder's own draws, or the entry's. */
export function entryOf<G, M, R, O>(item: CommandListItem<G, M, R, O>): CommandEntry<G, M, R, O> {
  return typeof item === 'function' ? { builder: item, draws: item.definition.draws } : item;
}

/**
 * The codec of a command list: each builder by name with its argument schema. A builder listed
 * twice (with draws of the model's own) appears once.
 *
 * @throws Error when two different commands of one list share a name.
 */
export function codecOf<G, M, R, O>(items: readonly CommandListItem<G, M, R, O>[]): CommandCodec<ModelCommand<M, R>> {
  const codec: Record<string, ReturnType<typeof codecEntry<readonly unknown[], ModelCommand<M, R>>>> = {};
  const seen = new Map<string, AnyCommandBuilder<G, M, R, O>>();
  for (const item of items) {
    const { builder } = entryOf(item);
    const name = builder.definition.name;
    const other = seen.get(name);
    if (other !== undefined && other !== builder) throw new Error(`two commands of one model are named ${name}`);
    seen.set(name, builder);
    codec[name] = codecEntry(builder.definition.args, (...args: readonly unknown[]) => (builder as unknown as (...a: readonly unknown[]) => ModelCommand<M, R>)(...args));
  }
  return codec;
}
