import { BadInput } from './bad-input.js';
import { allocatorModel } from './models/allocator/allocator-model.js';
import type { CommandData, DataCommand } from './models/command-data.js';
import { gpuKernelsModel } from './models/gpu-kernels/gpu-kernels-model.js';
import { hiCacheModel } from './models/hicache/hicache-model.js';
import { decodeModelCommands, formatModelFailure, resolveOptions, runModel, runModelProgram, type ModelDefinition } from './models/model-definition.js';
import { prefixCacheModel } from './models/prefix-cache/prefix-model.js';
import { andThen, type CampaignOptions, type MaybePromise, type ModelRunReport } from './models/run-model.js';
import { describeZodIssue } from './text/describe-zod-issue.js';

/** A planted bug as the CLI lists it. */
export interface MutantInfo {
  readonly name: string;
  readonly mechanism: string;
  readonly mode: 'contract' | 'exact';
}

/** What a campaign over one target found, and how strictly it compared. */
export interface TargetRun {
  readonly report: ModelRunReport<unknown>;
  readonly mode: 'contract' | 'exact';
}

/** A stored program checked and rebuilt from its data: ready to replay against the reference. */
export interface DecodedProgram {
  /** The geometry, checked against the target's geometry schema. */
  readonly geometry: unknown;
  /** The commands rebuilt by the target's codec; each prints itself for people. */
  readonly commands: readonly DataCommand[];
  /** Runs the commands on the reference and drains; throws (or rejects with) what the oracle finds. */
  replay(): void | Promise<void>;
}

/**
 * One fuzz target: a model, its planted bugs, and how to run and print it. A synchronous model
 * answers at once; a model whose commands await (the GPU) answers with a promise.
 */
export interface FuzzTarget {
  readonly name: string;
  readonly mutants: readonly MutantInfo[];
  /** Runs a campaign against the reference, or against the named mutant. */
  run(options: CampaignOptions, mutant: string | null): TargetRun | Promise<TargetRun>;
  formatFailure(report: ModelRunReport<unknown>): string;
  /**
   * Checks a stored geometry and program (data, never code) and rebuilds the commands; nothing
   * runs until `replay()`.
   *
   * @throws BadInput naming the problem: a geometry out of the model's ranges, an unknown command
   *   (with its index), arguments of the wrong type or out of range.
   */
  decode(geometry: unknown, commands: readonly CommandData[]): DecodedProgram;
}

/** The fuzz target of a model definition: everything the CLI, the campaign workers and the store need, derived from it. */
function targetOf<G, M extends { executed: number }, R, O>(def: ModelDefinition<G, M, R, O>): FuzzTarget {
  const mutants = def.plantedBugs.map((bug) => ({ name: bug.name, mechanism: bug.mechanism, mode: def.modeOf(resolveOptions(def, bug.options)) }));
  return {
    name: def.name,
    mutants,
    run(options, mutantName) {
      const bug = mutantName === null ? undefined : def.plantedBugs.find((b) => b.name === mutantName);
      if (mutantName !== null && bug === undefined) throw new Error(`no ${def.name} mutant named ${mutantName}`);
      const mode = def.modeOf(resolveOptions(def, bug?.options));
      const ran: MaybePromise<ModelRunReport<G>> = runModel(def, { ...options, ...(bug === undefined ? {} : { options: bug.options, ...(bug.geometry === undefined ? {} : { geometry: bug.geometry }) }) });
      return andThen(ran, (report): TargetRun => ({ mode, report: report as ModelRunReport<unknown> }));
    },
    formatFailure: (report) => formatModelFailure(def, report as ModelRunReport<G>),
    decode(geometry, commands) {
      const parsed = def.geometry.schema.safeParse(geometry);
      if (!parsed.success) throw new BadInput(describeZodIssue(parsed.error, 'geometry'));
      const g = parsed.data;
      const program = decodeModelCommands(def, commands);
      return { geometry: g, commands: program, replay: () => andThen(runModelProgram(def, g, program), () => undefined) };
    },
  };
}

/** Every fuzz model, in the order `--target all` runs them: the one list a new model is added to. */
export const kModels = [allocatorModel, prefixCacheModel, hiCacheModel, gpuKernelsModel] as const;

/** Every model as a fuzz target. */
export const kFuzzTargets: readonly FuzzTarget[] = kModels.map((def) => targetOf(def as ModelDefinition<unknown, { executed: number }, unknown, unknown>));

/** Models later issues add. */
export const kPlannedTargets: readonly string[] = [];

/** Targets that were renamed, by their old name: a stored file or a command line naming one gets told the new name. */
export const kRenamedTargets: Readonly<Record<string, string>> = { 'host-pool': 'hicache' };

export function findTarget(name: string): FuzzTarget | undefined {
  return kFuzzTargets.find((t) => t.name === name);
}

/** The target that owns a mutant name. */
export function targetOfMutant(name: string): FuzzTarget | undefined {
  return kFuzzTargets.find((t) => t.mutants.some((m) => m.name === name));
}
