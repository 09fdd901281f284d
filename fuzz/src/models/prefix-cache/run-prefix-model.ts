import fc from 'fast-check';
import { createAllocator } from '@kvfuzz/allocator-core';
import { RadixCache, ReqToTokenPool, type RadixCacheConfig } from '@kvfuzz/prefix-cache';
import { PageLedger } from '../../ledger/page-ledger.js';
import { RecordingAllocator } from '../../ledger/recording-allocator.js';
import { formatFailure, runCampaign, runProgram, type CampaignOptions, type ModelRunReport, type ModelSpec } from '../run-model.js';
import type { PrefixCommand } from './commands/command.js';
import { formatPrefixGeometry, kRowPagesMax, prefixGeometryArbitrary, prefixPageSizeOf, type PrefixGeometry } from './geometry.js';
import { kLifecycleCommandsMax, lifecycleCommandArbitraries, lifecycleMixArbitrary } from './prefix-commands.js';
import { drainPrefix } from './prefix-drain.js';
import type { PrefixModel, PrefixReal } from './prefix-model-state.js';

/** Builds the cache under test; a planted bug swaps in its own subclass. */
export type CacheFactory = (config: RadixCacheConfig) => RadixCache;

const referenceCache: CacheFactory = (config) => new RadixCache(config);

export interface PrefixModelOptions extends CampaignOptions {
  /** @defaultValue the reference `RadixCache` */
  readonly cache?: CacheFactory;
  /** Geometry fields to hold fixed instead of drawing. */
  readonly geometry?: Partial<PrefixGeometry>;
  /** @defaultValue kLifecycleCommandsMax */
  readonly maxCommands?: number;
}

export function setupPrefix(g: PrefixGeometry, factory: CacheFactory = referenceCache): { model: PrefixModel; real: PrefixReal } {
  const ps = prefixPageSizeOf(g);
  const ledger = new PageLedger(ps, g.poolPages);
  const allocator = createAllocator({ sizeTokens: g.poolPages * ps, kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: g.needSort, checks: g.checks });
  const recorder = new RecordingAllocator(allocator, ledger);
  const reqToToken = new ReqToTokenPool(g.rowCount, kRowPagesMax * ps);
  const cache = factory({ allocator: recorder, reqToToken, kernelPageSize: g.kernelPageSize, evictionPolicy: g.evictionPolicy, finishPath: g.finishPath });
  return {
    model: { geometry: g, pageSize: ps, ledger, live: [], nextId: 0, slotContent: new Map(), extraLocks: [], executed: 0 },
    real: { cache, recorder, allocator, reqToToken, selfCheck: factory === referenceCache },
  };
}

export function prefixModelSpec(factory: CacheFactory = referenceCache, fixed: Partial<PrefixGeometry> = {}, maxCommands = kLifecycleCommandsMax): ModelSpec<PrefixGeometry, PrefixModel, PrefixReal> {
  return {
    arbitrary: fc
      .tuple(prefixGeometryArbitrary(fixed), lifecycleMixArbitrary)
      .chain(([g, mix]) => fc.tuple(fc.constant(g), fc.commands(lifecycleCommandArbitraries(g, mix), { maxCommands, size: 'max' }))),
    setup: (g) => setupPrefix(g, factory),
    drain: drainPrefix,
    executed: (m) => m.executed,
  };
}

/** The request-lifecycle model: random geometries and lifecycles against the cache, the ledger as the oracle. */
export function runPrefixModel(options: PrefixModelOptions = {}): ModelRunReport<PrefixGeometry> {
  return runCampaign(prefixModelSpec(options.cache, options.geometry, options.maxCommands), options);
}

export function runPrefixProgram(g: PrefixGeometry, commands: Iterable<PrefixCommand>, factory: CacheFactory = referenceCache): PrefixModel {
  return runProgram(prefixModelSpec(factory), g, commands);
}

export function formatPrefixFailure(report: ModelRunReport<PrefixGeometry>, target = 'prefix-cache'): string {
  return formatFailure(report, target, formatPrefixGeometry);
}
