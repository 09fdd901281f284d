import type { AllocatorProvider } from '@kvfuzz/allocator-core';
import type { ReportScope } from '../../contract/report-scope.js';
import { formatModelFailure, runModel, runModelProgram } from '../model-definition.js';
import { syncResult, type CampaignOptions, type ModelRunReport } from '../run-model.js';
import { allocatorModel } from './allocator-model.js';
import type { AllocatorModel } from './allocator-model-state.js';
import type { AllocatorCommand } from './commands/command.js';
import type { AllocatorGeometry } from './geometry.js';

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
  /** The part of the contract the campaign feeds (a per-rule report's family); everything when absent. */
  readonly scope?: ReportScope;
}

/**
 * Runs the allocator model: random geometries and command sequences against the provider, the
 * ledger as the oracle, a drain at the end of every run. Never throws for a failure: it reports it.
 */
export function runAllocatorModel(options: AllocatorModelOptions = {}): ModelRunReport<AllocatorGeometry> {
  const { provider, mode, scope, ...rest } = options;
  const over = { ...(provider === undefined ? {} : { provider }), ...(mode === undefined ? {} : { mode }), ...(scope === undefined ? {} : { scope }) };
  return syncResult(runModel(allocatorModel, { ...rest, options: over }), 'runAllocatorModel');
}

/** Runs one program (a geometry and a command list) and drains; throws what the oracle finds. */
export function runAllocatorProgram(g: AllocatorGeometry, commands: Iterable<AllocatorCommand>, provider?: AllocatorProvider, exact = false): AllocatorModel {
  const over = { ...(provider === undefined ? {} : { provider }), mode: exact ? ('exact' as const) : ('contract' as const) };
  return syncResult(runModelProgram(allocatorModel, g, commands, over), 'runAllocatorProgram');
}

/** A failure as the text a person reads: header (seed, path, geometry), the rule, and the program. */
export function formatAllocatorFailure(report: ModelRunReport<AllocatorGeometry>, target = 'allocator'): string {
  return formatModelFailure(allocatorModel, report, target);
}
