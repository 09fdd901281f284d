import { findAllocatorMutant, kAllocatorMutants } from '../mutants/allocator/catalogue.js';
import { findPrefixCacheMutant, kPrefixCacheMutants } from '../mutants/prefix-cache/catalogue.js';
import { parseAllocatorProgram } from './models/allocator/program.js';
import { allocatorModelSpec, formatAllocatorFailure, runAllocatorModel } from './models/allocator/run-allocator-model.js';
import type { AllocatorGeometry } from './models/allocator/geometry.js';
import type { PrefixGeometry } from './models/prefix-cache/geometry.js';
import { findHostPoolMutant, kHostPoolMutants } from '../mutants/host-pool/catalogue.js';
import type { HiCacheGeometry } from './models/hicache/hicache-geometry.js';
import { parseTwoTierProgram } from './models/hicache/hicache-program.js';
import { formatTwoTierFailure, runTwoTierModel, twoTierModelSpec } from './models/hicache/run-hicache-model.js';
import { parsePrefixProgram } from './models/prefix-cache/prefix-program.js';
import { formatPrefixFailure, prefixModelSpec, runPrefixModel } from './models/prefix-cache/run-prefix-model.js';
import { runProgram, type CampaignOptions, type ModelRunReport } from './models/run-model.js';
import { findGpuKernelMutant, kGpuKernelMutants } from '../mutants/gpu-kernels/catalogue.js';
import type { GpuKernelsGeometry } from './models/gpu-kernels/gpu-geometry.js';
import { parseGpuProgram } from './models/gpu-kernels/gpu-program.js';
import { formatGpuKernelsFailure, runGpuKernelsModel, runGpuKernelsProgram } from './models/gpu-kernels/run-gpu-model.js';

/** A planted bug as the CLI lists it. */
export interface MutantInfo {
  readonly name: string;
  readonly item: number;
  readonly mechanism: string;
  readonly mode: 'contract' | 'exact';
}

/** What a campaign over one target found, and how strictly it compared. */
export interface TargetRun {
  readonly report: ModelRunReport<unknown>;
  readonly mode: 'contract' | 'exact';
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
  /** Runs a printed program against the reference; throws (or rejects with) what the oracle finds. */
  replayProgram(geometry: unknown, program: readonly string[]): void | Promise<void>;
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
  replayProgram: (geometry, program) => void runProgram(allocatorModelSpec(), geometry as AllocatorGeometry, parseAllocatorProgram(program)),
};

const prefixCacheTarget: FuzzTarget = {
  name: 'prefix-cache',
  mutants: kPrefixCacheMutants.map((m) => ({ ...m, mode: 'contract' as const })),
  run(options, mutantName) {
    const mutant = mutantName === null ? undefined : findPrefixCacheMutant(mutantName);
    return { mode: 'contract', report: runPrefixModel({ ...options, ...(mutant !== undefined ? { cache: mutant.create, geometry: mutant.geometry } : {}) }) };
  },
  formatFailure: (report) => formatPrefixFailure(report as ModelRunReport<PrefixGeometry>),
  replayProgram: (geometry, program) => void runProgram(prefixModelSpec(), geometry as PrefixGeometry, parsePrefixProgram(program)),
};

const hostPoolTarget: FuzzTarget = {
  name: 'host-pool',
  mutants: kHostPoolMutants.map((m) => ({ ...m, mode: 'contract' as const })),
  run(options, mutantName) {
    const mutant = mutantName === null ? undefined : findHostPoolMutant(mutantName);
    return { mode: 'contract', report: runTwoTierModel({ ...options, ...(mutant !== undefined ? { factories: mutant.factories, geometry: mutant.geometry } : {}) }) };
  },
  formatFailure: (report) => formatTwoTierFailure(report as ModelRunReport<HiCacheGeometry>),
  replayProgram: (geometry, program) => void runProgram(twoTierModelSpec(), geometry as HiCacheGeometry, parseTwoTierProgram(program)),
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
  replayProgram: async (geometry, program) => void (await runGpuKernelsProgram(geometry as GpuKernelsGeometry, parseGpuProgram(program))),
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
