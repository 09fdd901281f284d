import fc from 'fast-check';
import type { z } from 'zod';
import { decodeCommands, type CommandCodec } from './command-codec.js';
import type { CommandData } from './command-data.js';
import { codecOf, entryOf, ModelCommand, type CommandListItem } from './model-command.js';
import { formatFailure, runCampaign, runProgram, type CampaignOptions, type MaybePromise, type ModelRunReport, type ModelSpec, type RunCommand } from './run-model.js';

/** A model's geometry: drawn once per run, printed in every failure header, checked when stored. */
export interface GeometryDefinition<G, O> {
  /** A stored geometry (a regression file's), checked against the ranges the model draws from. */
  readonly schema: z.ZodType<G>;
  /** Draws a run's geometry; a field in `fixed` is not drawn. */
  arbitrary(fixed: Partial<G>, o: O): fc.Arbitrary<G>;
  format(g: G): string;
}

/** A planted bug of a model: the options that swap it in, and the geometry fields it needs held fixed. */
export interface PlantedBug<G, O> {
  /** Stable name, used by `--mutant` and the kill table. */
  readonly name: string;
  readonly mechanism: string;
  readonly options: Partial<O>;
  readonly geometry?: Partial<G>;
}

/**
 * One fuzz model, defined the same way as every other: its geometry, its per-run command mix, its
 * command list, how a run is set up and drained, and its planted bugs. The campaign runner, the
 * codec of stored programs, the CLI target and the kill table are all derived from it.
 *
 * @typeParam G - the geometry; M - the model state; R - the real side; O - the options a campaign
 *   runs under (which implementation, how strictly it is compared).
 */
export interface ModelDefinition<G, M extends { executed: number }, R, O> {
  /** The target name: `--target`, the regression store's folder, the kill table's model column. */
  readonly name: string;
  /** Whether its commands, setup or drain await (the GPU model). */
  readonly async: boolean;
  readonly geometry: GeometryDefinition<G, O>;
  /**
   * Per-run weight of each command family, a record of family names to weights: some
   * runs never free, some only evict. Every family a draw names must be in it.
   */
  mix(o: O): fc.Arbitrary<object>;
  /** Every command, in the order a run's weighted list holds them. */
  readonly commands: readonly CommandListItem<G, M, R, O>[];
  /** Commands per run at most. */
  readonly commandsPerRunMax: number;
  /**
   * The geometry fields the command arbitraries read, as a key: they are built once per key
   * instead of once per run.
   */
  arbitraryKey(g: G): string;
  /** The options of a campaign against the reference. */
  readonly reference: O;
  /** How strictly a campaign under `o` compares: any contract-keeping answer, or the reference's own. */
  modeOf(o: O): 'contract' | 'exact';
  setup(g: G, o: O): MaybePromise<{ model: M; real: R }>;
  /** The end of every run: give everything back and check the whole system is clean. */
  drain(m: M, r: R): MaybePromise<void>;
  /** The CONTRACT.md rule a failure broke, for the models `pnpm validate` runs. */
  ruleOf?(error: unknown): string | null;
  /** Runs before a campaign or a replay, so a missing device fails there and not as a finding (the GPU). */
  prepare?(o: O): Promise<void>;
  readonly plantedBugs: readonly PlantedBug<G, O>[];
}

/** How a campaign against one model runs. */
export interface ModelRunOptions<G, O> extends CampaignOptions {
  /** Geometry fields to hold fixed instead of drawing. */
  readonly geometry?: Partial<G>;
  /** @defaultValue the model's `commandsPerRunMax` */
  readonly maxCommands?: number;
  /** Options over the reference's (a planted bug's implementation, exact mode). */
  readonly options?: Partial<O>;
}

/** Most geometry keys whose arbitraries one campaign keeps: the models' keys take a few dozen values. */
const kArbitraryKeysMax = 256;

/** @internal The weighted draws of one geometry key: each draw's family, weight, and arbitrary of commands. */
export interface BuiltDraw<M, R> {
  readonly family: string;
  readonly weight: number;
  readonly arbitrary: fc.Arbitrary<RunCommand<M, R>>;
}

/** @internal A model's draws for a geometry, built from its command list (the runner keeps them per `arbitraryKey`). */
export function buildDraws<G, M extends { executed: number }, R, O>(def: ModelDefinition<G, M, R, O>, g: G, o: O): BuiltDraw<M, R>[] {
  const built: BuiltDraw<M, R>[] = [];
  for (const item of def.commands) {
    const { builder, draws } = entryOf(item);
    const definition = builder.definition as unknown as ModelCommand<M, R>['definition'];
    for (const draw of draws) {
      const args = draw.arbitrary(g, o);
      if (args !== null) built.push({ family: draw.family, weight: draw.weight ?? 1, arbitrary: args.map((a) => new ModelCommand<M, R>(definition, a)) });
    }
  }
  return built;
}

/**
 * The list `fc.commands` draws from: each draw repeated by its family's weight in this run's mix
 * times its own weight, so the run's mix decides how often it comes up.
 *
 * @throws Error naming a family the mix does not draw.
 */
function weighted<M, R>(draws: readonly BuiltDraw<M, R>[], mix: object, model: string): fc.Arbitrary<RunCommand<M, R>>[] {
  const list: fc.Arbitrary<RunCommand<M, R>>[] = [];
  for (const draw of draws) {
    const familyWeight = (mix as Readonly<Record<string, number | undefined>>)[draw.family];
    if (familyWeight === undefined) throw new Error(`${model}: command family ${draw.family} is not in the model's mix`);
    for (let i = 0; i < familyWeight * draw.weight; i++) list.push(draw.arbitrary);
  }
  return list;
}

const resolved = new WeakMap<object, WeakMap<object, unknown>>();

/**
 * The options a campaign runs under: the reference's, with `options` over them. The same partial
 * options (a planted bug's) resolve to the same object every time, so campaigns under them share
 * their command arbitraries.
 */
export function resolveOptions<O>(def: { readonly reference: O }, options?: Partial<O>): O {
  if (options === undefined || Object.keys(options).length === 0) return def.reference;
  let byPartial = resolved.get(def);
  if (byPartial === undefined) {
    byPartial = new WeakMap();
    resolved.set(def, byPartial);
  }
  let o = byPartial.get(options) as O | undefined;
  if (o === undefined) {
    o = { ...def.reference, ...options };
    byPartial.set(options, o);
  }
  return o;
}

/** Command arbitraries by options object, then by geometry key: what every campaign under those options draws from. */
const drawsByOptions = new WeakMap<object, Map<string, BuiltDraw<never, never>[]>>();

/** The draw cache of a campaign under `o`: shared by every campaign under the same options object. */
function drawCacheOf<M, R>(o: unknown): Map<string, BuiltDraw<M, R>[]> {
  if (typeof o !== 'object' || o === null) return new Map();
  let cache = drawsByOptions.get(o);
  if (cache === undefined) {
    cache = new Map();
    drawsByOptions.set(o, cache);
  }
  return cache as unknown as Map<string, BuiltDraw<M, R>[]>;
}

/** A model as the campaign runner takes it, under options `o`. */
export function modelSpec<G, M extends { executed: number }, R, O>(def: ModelDefinition<G, M, R, O>, o: O, fixed: Partial<G> = {}, maxCommands: number = def.commandsPerRunMax): ModelSpec<G, M, R> {
  const byKey = drawCacheOf<M, R>(o);
  const drawsOf = (g: G): BuiltDraw<M, R>[] => {
    const key = def.arbitraryKey(g);
    let draws = byKey.get(key);
    if (draws === undefined) {
      if (byKey.size >= kArbitraryKeysMax) byKey.clear();
      draws = buildDraws(def, g, o);
      byKey.set(key, draws);
    }
    return draws;
  };
  return {
    arbitrary: fc
      .tuple(def.geometry.arbitrary(fixed, o), def.mix(o))
      .chain(([g, mix]) => fc.tuple(fc.constant(g), fc.commands(weighted(drawsOf(g), mix, def.name) as fc.Arbitrary<fc.Command<M, R>>[], { maxCommands, size: 'max' }))),
    async: def.async,
    setup: (g) => def.setup(g, o),
    drain: (m, r) => def.drain(m, r),
    executed: (m) => m.executed,
    ...(def.ruleOf === undefined ? {} : { ruleOf: (error: unknown) => def.ruleOf?.(error) ?? null }),
  };
}

/**
 * Runs a campaign against a model: random geometries and command sequences, the ledger as the
 * oracle, a drain at the end of every run. Never throws for a failure: it reports it. A model
 * that awaits answers with a promise.
 */
export function runModel<G, M extends { executed: number }, R, O>(def: ModelDefinition<G, M, R, O>, options: ModelRunOptions<G, O> = {}): MaybePromise<ModelRunReport<G>> {
  const o = resolveOptions(def, options.options);
  const run = (): MaybePromise<ModelRunReport<G>> => runCampaign(modelSpec(def, o, options.geometry, options.maxCommands), options);
  return def.prepare === undefined ? run() : def.prepare(o).then(run);
}

/** Runs one program (a geometry and a command list) and drains; throws (or rejects with) what the oracle finds. */
export function runModelProgram<G, M extends { executed: number }, R, O>(def: ModelDefinition<G, M, R, O>, geometry: G, commands: Iterable<RunCommand<M, R>>, options: Partial<O> = {}): MaybePromise<M> {
  const o = resolveOptions(def, options);
  const run = (): MaybePromise<M> => runProgram(modelSpec(def, o), geometry, commands);
  return def.prepare === undefined ? run() : def.prepare(o).then(run);
}

const codecs = new WeakMap<object, CommandCodec<unknown>>();

/** A model's codec: each command's builder name with its argument schema (built once per model). */
export function modelCodec<G, M extends { executed: number }, R, O>(def: ModelDefinition<G, M, R, O>): CommandCodec<ModelCommand<M, R>> {
  let codec = codecs.get(def);
  if (codec === undefined) {
    codec = codecOf(def.commands);
    codecs.set(def, codec);
  }
  return codec as CommandCodec<ModelCommand<M, R>>;
}

/**
 * Rebuilds a model's commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeModelCommands<G, M extends { executed: number }, R, O>(def: ModelDefinition<G, M, R, O>, data: readonly CommandData[]): ModelCommand<M, R>[] {
  return decodeCommands(modelCodec(def), data);
}

/** A failure as the text a person reads: header (seed, path, geometry), the rule, and the program. */
export function formatModelFailure<G, M extends { executed: number }, R, O>(def: ModelDefinition<G, M, R, O>, report: ModelRunReport<G>, target: string = def.name): string {
  return formatFailure(report, target, (g) => def.geometry.format(g));
}
