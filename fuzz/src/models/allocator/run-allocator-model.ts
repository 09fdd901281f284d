import fc from 'fast-check';
import { referenceProvider, type AllocatorProvider } from '@kvfuzz/allocator-core';
import { PageLedger } from '../../ledger/page-ledger.js';
import { allocatorCommandArbitraries, commandMixArbitrary, kCommandsPerRunMax } from './allocator-commands.js';
import type { AllocatorModel, AllocatorReal } from './allocator-model-state.js';
import type { AllocatorCommand } from './commands/command.js';
import { drainAllocator } from './drain.js';
import { contractChecked } from './model-io.js';
import { formatGeometry, geometryArbitrary, pageSizeOf, sizeTokensOf, type AllocatorGeometry } from './geometry.js';
import { formatFailure, runCampaign, runProgram, type CampaignOptions, type ModelRunReport, type ModelSpec } from '../run-model.js';

/** How a campaign against the allocator model runs. */
export interface AllocatorModelOptions extends CampaignOptions {
  /**
   * The implementation under test.
   * @defaultValue the reference (`referenceProvider`)
   */
  readonly provider?: AllocatorProvider;
  /**
   * `contract`: any page choice that keeps the contract; `exact`: also the reference's page ids and order.
   * @defaultValue 'contract'
   */
  readonly mode?: 'contract' | 'exact';
  /** Geometry fields to hold fixed instead of drawing. */
  readonly geometry?: Partial<AllocatorGeometry>;
  /** @defaultValue kCommandsPerRunMax */
  readonly maxCommands?: number;
}

export function newAllocatorModel(g: AllocatorGeometry): AllocatorModel {
  return { geometry: g, pageSize: pageSizeOf(g), ledger: new PageLedger(pageSizeOf(g), g.poolPages), live: [], nextId: 0, groupOpen: false, backup: null, executed: 0 };
}

/**
 * The real side of a run: the provider's allocator, checked against the contract's types and the
 * configuration's geometry (see {@link contractChecked}), and the reference in exact mode.
 *
 * @throws LedgerViolation when what `create` returned is not an allocator of this geometry.
 */
export function newAllocatorReal(g: AllocatorGeometry, provider: AllocatorProvider, exact: boolean): AllocatorReal {
  const config = { sizeTokens: sizeTokensOf(g), kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: g.needSort, checks: g.checks };
  return {
    allocator: contractChecked(provider.create(config), config),
    shadow: exact ? referenceProvider.create(config) : null,
    backupState: null,
    shadowBackupState: null,
    selfCheck: provider === referenceProvider,
  };
}

/** The allocator model as the campaign runner takes it. */
export function allocatorModelSpec(
  provider: AllocatorProvider = referenceProvider,
  mode: 'contract' | 'exact' = 'contract',
  fixed: Partial<AllocatorGeometry> = {},
  maxCommands: number = kCommandsPerRunMax,
): ModelSpec<AllocatorGeometry, AllocatorModel, AllocatorReal> {
  return {
    arbitrary: fc
      .tuple(geometryArbitrary(fixed), commandMixArbitrary)
      .chain(([g, mix]) => fc.tuple(fc.constant(g), fc.commands(allocatorCommandArbitraries(g, mix), { maxCommands, size: 'max' }))),
    setup: (g) => ({ model: newAllocatorModel(g), real: newAllocatorReal(g, provider, mode === 'exact') }),
    drain: drainAllocator,
    executed: (m) => m.executed,
  };
}

/** Runs one program (a geometry and a command list) and drains; throws what the oracle finds. */
export function runAllocatorProgram(g: AllocatorGeometry, commands: Iterable<AllocatorCommand>, provider: AllocatorProvider = referenceProvider, exact = false): AllocatorModel {
  return runProgram(allocatorModelSpec(provider, exact ? 'exact' : 'contract'), g, commands);
}

/**
 * Runs the allocator model: random geometries and command sequences against the provider, the
 * ledger as the oracle, a drain at the end of every run. Never throws for a failure: it reports it.
 */
export function runAllocatorModel(options: AllocatorModelOptions = {}): ModelRunReport<AllocatorGeometry> {
  return runCampaign(allocatorModelSpec(options.provider, options.mode, options.geometry, options.maxCommands), options);
}

/** A failure as the text a person reads: header (seed, path, geometry), the rule, and the program. */
export function formatAllocatorFailure(report: ModelRunReport<AllocatorGeometry>, target = 'allocator'): string {
  return formatFailure(report, target, formatGeometry);
}
