import { formatModelFailure, runModel, runModelProgram } from '../model-definition.js';
import { syncResult, type CampaignOptions, type ModelRunReport } from '../run-model.js';
import type { PrefixCommand } from './commands/command.js';
import type { PrefixGeometry } from './geometry.js';
import { prefixCacheModel } from './prefix-model.js';
import type { CacheFactory, PrefixModel } from './prefix-model-state.js';

export interface PrefixModelOptions extends CampaignOptions {
  /** @defaultValue the reference `RadixCache` */
  readonly cache?: CacheFactory;
  /** Geometry fields to hold fixed instead of drawing. */
  readonly geometry?: Partial<PrefixGeometry>;
  /** @defaultValue kLifecycleCommandsMax */
  readonly maxCommands?: number;
}

/** The request-lifecycle model: random geometries and lifecycles against the cache, the ledger as the oracle. */
export function runPrefixModel(options: PrefixModelOptions = {}): ModelRunReport<PrefixGeometry> {
  const { cache, ...rest } = options;
  return syncResult(runModel(prefixCacheModel, { ...rest, options: cache === undefined ? {} : { cache } }), 'runPrefixModel');
}

export function runPrefixProgram(g: PrefixGeometry, commands: Iterable<PrefixCommand>, cache?: CacheFactory): PrefixModel {
  return syncResult(runModelProgram(prefixCacheModel, g, commands, cache === undefined ? {} : { cache }), 'runPrefixProgram');
}

export function formatPrefixFailure(report: ModelRunReport<PrefixGeometry>, target = 'prefix-cache'): string {
  return formatModelFailure(prefixCacheModel, report, target);
}
