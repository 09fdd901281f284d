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

/** A planted bug as the CLI lists it. */
export interface MutantInfo {
  readonly name: string;
  readonly item: number;
  readonly mechanism: string;
  readonly mode: 'contract' | 'exact';
}

/** One fuzz target: a model, its planted bugs, and how to run and print it. */
export interface FuzzTarget {
  readonly name: string;
  readonly mutants: readonly MutantInfo[];
  /** Runs a campaign against the reference, or against the named mutant. */
  run(options: CampaignOptions, mutant: string | null): { readonly report: ModelRunReport<unknown>; readonly mode: 'contract' | 'exact' };
  formatFailure(report: ModelRunReport<unknown>): string;
  /** Runs a printed program against the reference; throws what the oracle finds. */
  replayProgram(geometry: unknown, program: readonly string[]): void;
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

/** Every model that exists, in the order `--target all` runs them. */
export const kFuzzTargets: readonly FuzzTarget[] = [allocatorTarget, prefixCacheTarget, hostPoolTarget];

/** Models later issues add. */
export const kPlannedTargets: readonly string[] = ['gpu-kernels'];

export function findTarget(name: string): FuzzTarget | undefined {
  return kFuzzTargets.find((t) => t.name === name);
}

/** The target that owns a mutant name. */
export function targetOfMutant(name: string): FuzzTarget | undefined {
  return kFuzzTargets.find((t) => t.mutants.some((m) => m.name === name));
}
