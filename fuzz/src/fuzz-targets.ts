import type { z } from 'zod';
import { findAllocatorMutant, kAllocatorMutants } from '../mutants/allocator/catalogue.js';
import { findPrefixCacheMutant, kPrefixCacheMutants } from '../mutants/prefix-cache/catalogue.js';
import { BadInput } from './bad-input.js';
import { decodeAllocatorCommands } from './models/allocator/program.js';
import { allocatorModelSpec, formatAllocatorFailure, runAllocatorModel } from './models/allocator/run-allocator-model.js';
import { allocatorGeometrySchema, type AllocatorGeometry } from './models/allocator/geometry.js';
import type { CommandData, DataCommand } from './models/command-data.js';
import { prefixGeometrySchema, type PrefixGeometry } from './models/prefix-cache/geometry.js';
import { findHostPoolMutant, kHostPoolMutants } from '../mutants/host-pool/catalogue.js';
import { hiCacheGeometrySchema, type HiCacheGeometry } from './models/hicache/hicache-geometry.js';
import { decodeTwoTierCommands } from './models/hicache/hicache-program.js';
import { formatTwoTierFailure, runTwoTierModel, twoTierModelSpec } from './models/hicache/run-hicache-model.js';
import { decodePrefixCommands } from './models/prefix-cache/prefix-program.js';
import { formatPrefixFailure, prefixModelSpec, runPrefixModel } from './models/prefix-cache/run-prefix-model.js';
import { runProgram, type CampaignOptions, type ModelRunReport } from './models/run-model.js';
import { findGpuKernelMutant, kGpuKernelMutants } from '../mutants/gpu-kernels/catalogue.js';
import { gpuGeometrySchema, type GpuKernelsGeometry } from './models/gpu-kernels/gpu-geometry.js';
import { decodeGpuCommands } from './models/gpu-kernels/gpu-program.js';
import { formatGpuKernelsFailure, runGpuKernelsModel, runGpuKernelsProgram } from './models/gpu-kernels/run-gpu-model.js';
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

/** A stored geometry checked against a target's schema. */
function checkGeometry<G>(schema: z.ZodType<G>, geometry: unknown): G {
  const parsed = schema.safeParse(geometry);
  if (!parsed.success) throw new BadInput(describeZodIssue(parsed.error, 'geometry'));
  return parsed.data;
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

const allocatorTarget: FuzzTarget = {
  name: 'allocator',
  mutants: kAllocatorMutants,
  run(options, mutantName) {
    const mutant = mutantName === null ? undefined : findAllocatorMutant(mutantName);
    const mode = mutant?.mode ?? 'contract';
    return { mode, report: runAllocatorModel({ ...options, mode, ...(mutant !== undefined ? { provider: mutant.provider } : {}) }) };
  },
  formatFailure: (report) => formatAllocatorFailure(report as ModelRunReport<AllocatorGeometry>),
  decode(geometry, commands) {
    const g = checkGeometry(allocatorGeometrySchema, geometry);
    const program = decodeAllocatorCommands(commands);
    return { geometry: g, commands: program, replay: () => void runProgram(allocatorModelSpec(), g, program) };
  },
};

const prefixCacheTarget: FuzzTarget = {
  name: 'prefix-cache',
  mutants: kPrefixCacheMutants.map((m) => ({ ...m, mode: 'contract' as const })),
  run(options, mutantName) {
    const mutant = mutantName === null ? undefined : findPrefixCacheMutant(mutantName);
    return { mode: 'contract', report: runPrefixModel({ ...options, ...(mutant !== undefined ? { cache: mutant.create, geometry: mutant.geometry } : {}) }) };
  },
  formatFailure: (report) => formatPrefixFailure(report as ModelRunReport<PrefixGeometry>),
  decode(geometry, commands) {
    const g = checkGeometry(prefixGeometrySchema, geometry);
    const program = decodePrefixCommands(commands);
    return { geometry: g, commands: program, replay: () => void runProgram(prefixModelSpec(), g, program) };
  },
};

const hostPoolTarget: FuzzTarget = {
  name: 'host-pool',
  mutants: kHostPoolMutants.map((m) => ({ ...m, mode: 'contract' as const })),
  run(options, mutantName) {
    const mutant = mutantName === null ? undefined : findHostPoolMutant(mutantName);
    return { mode: 'contract', report: runTwoTierModel({ ...options, ...(mutant !== undefined ? { factories: mutant.factories, geometry: mutant.geometry } : {}) }) };
  },
  formatFailure: (report) => formatTwoTierFailure(report as ModelRunReport<HiCacheGeometry>),
  decode(geometry, commands) {
    const g = checkGeometry(hiCacheGeometrySchema, geometry);
    const program = decodeTwoTierCommands(commands);
    return { geometry: g, commands: program, replay: () => void runProgram(twoTierModelSpec(), g, program) };
  },
};

/**
 * The CPU allocator and the GPU kernels in lock-step, on this thread's WebGPU device (each worker
 * thread makes its own). Exact: the GPU must hand out the reference's slots in its order.
 */
const gpuKernelsTarget: FuzzTarget = {
  name: 'gpu-kernels',
  mutants: kGpuKernelMutants.map((m) => ({ ...m, mode: 'exact' as const })),
  async run(options, mutantName) {
    const bug = mutantName === null ? 'none' : findGpuKernelMutant(mutantName)?.name;
    if (bug === undefined) throw new Error(`no gpu-kernels mutant named ${mutantName}`);
    return { mode: 'exact', report: await runGpuKernelsModel({ ...options, bug }) };
  },
  formatFailure: (report) => formatGpuKernelsFailure(report as ModelRunReport<GpuKernelsGeometry>),
  decode(geometry, commands) {
    const g = checkGeometry(gpuGeometrySchema, geometry);
    const program = decodeGpuCommands(commands);
    return { geometry: g, commands: program, replay: async () => void (await runGpuKernelsProgram(g, program)) };
  },
};

/** Every model that exists, in the order `--target all` runs them. */
export const kFuzzTargets: readonly FuzzTarget[] = [allocatorTarget, prefixCacheTarget, hostPoolTarget, gpuKernelsTarget];

/** Models later issues add. */
export const kPlannedTargets: readonly string[] = [];

export function findTarget(name: string): FuzzTarget | undefined {
  return kFuzzTargets.find((t) => t.name === name);
}

/** The target that owns a mutant name. */
export function targetOfMutant(name: string): FuzzTarget | undefined {
  return kFuzzTargets.find((t) => t.mutants.some((m) => m.name === name));
}
