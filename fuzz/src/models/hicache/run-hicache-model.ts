import { formatModelFailure, runModel, runModelProgram } from '../model-definition.js';
import { syncResult, type CampaignOptions, type ModelRunReport } from '../run-model.js';
import type { HiCacheCommand } from './commands/command.js';
import type { HiCacheGeometry } from './hicache-geometry.js';
import { hiCacheModel } from './hicache-model.js';
import type { HiCacheFactories, HiCacheModel } from './hicache-state.js';

export interface HiCacheModelOptions extends CampaignOptions {
  /** @defaultValue the reference cache and host pool */
  readonly factories?: HiCacheFactories;
  /** Geometry fields to hold fixed instead of drawing. */
  readonly geometry?: Partial<HiCacheGeometry>;
  /** @defaultValue kHiCacheCommandsMax */
  readonly maxCommands?: number;
}

/** The HiCache model: random geometries, write policies and lifecycles against the two tiers, two ledgers as the oracle. */
export function runHiCacheModel(options: HiCacheModelOptions = {}): ModelRunReport<HiCacheGeometry> {
  const { factories, ...rest } = options;
  return syncResult(runModel(hiCacheModel, { ...rest, options: factories === undefined ? {} : { factories } }), 'runHiCacheModel');
}

export function runHiCacheProgram(g: HiCacheGeometry, commands: Iterable<HiCacheCommand>, factories: HiCacheFactories = {}): HiCacheModel {
  return syncResult(runModelProgram(hiCacheModel, g, commands, { factories }), 'runHiCacheProgram');
}

export function formatHiCacheFailure(report: ModelRunReport<HiCacheGeometry>, target = 'hicache'): string {
  return formatModelFailure(hiCacheModel, report, target);
}

export type { HiCacheFactories };
