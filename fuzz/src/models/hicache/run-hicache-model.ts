import fc from 'fast-check';
import { createAllocator } from '@kvfuzz/allocator-core';
import { HiRadixCache, HostSlotPool, type HiRadixCacheConfig, type HostSlotPoolConfig } from '@kvfuzz/host-pool';
import { ReqToTokenPool } from '@kvfuzz/prefix-cache';
import { PageLedger } from '../../ledger/page-ledger.js';
import { RecordingAllocator } from '../../ledger/recording-allocator.js';
import { RecordingHostPool, type HostPoolLike } from '../../ledger/recording-host-pool.js';
import { kRowPagesMax } from '../prefix-cache/geometry.js';
import { formatFailure, runCampaign, runProgram, type CampaignOptions, type ModelRunReport, type ModelSpec } from '../run-model.js';
import type { HiCommand } from './commands/hicache-commands.js';
import { checkTwoTier } from './hicache-checks.js';
import { twoTierCommandArbitraries, kTwoTierCommandsMax } from './hicache-commands.js';
import { drainTwoTier } from './hicache-drain.js';
import { formatHiCacheGeometry, hiCacheGeometryArbitrary, type HiCacheGeometry } from './hicache-geometry.js';
import type { HiModel, HiReal } from './hicache-state.js';

/** What a planted bug swaps in: the cache, the host pool, or both. */
export interface TwoTierFactories {
  readonly cache?: (config: HiRadixCacheConfig) => HiRadixCache;
  readonly hostPool?: (config: HostSlotPoolConfig) => HostPoolLike;
}

export interface TwoTierOptions extends CampaignOptions {
  readonly factories?: TwoTierFactories;
  readonly geometry?: Partial<HiCacheGeometry>;
  readonly maxCommands?: number;
}

export function setupTwoTier(g: HiCacheGeometry, factories: TwoTierFactories = {}): { model: HiModel; real: HiReal } {
  const ps = g.kernelPageSize * g.dcpSize;
  const ledger = new PageLedger(ps, g.poolPages);
  const allocator = createAllocator({ sizeTokens: g.poolPages * ps, kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: g.needSort, checks: g.checks });
  const recorder = new RecordingAllocator(allocator, ledger);
  const hostConfig: HostSlotPoolConfig = { sizeTokens: g.hostPages * ps, pageSize: ps, dcpSize: g.dcpSize, checks: g.hostChecks };
  const hostSizeExpected = (g.hostPages + 1) * ps;
  const hostLedger = new PageLedger(1, hostSizeExpected);
  const hostPool = new RecordingHostPool((factories.hostPool ?? ((c) => new HostSlotPool(c)))(hostConfig), hostLedger, new HostSlotPool(hostConfig));
  const reqToToken = new ReqToTokenPool(g.rowCount, kRowPagesMax * ps);
  const config: HiRadixCacheConfig = {
    allocator: recorder,
    reqToToken,
    kernelPageSize: g.kernelPageSize,
    evictionPolicy: g.evictionPolicy,
    finishPath: g.finishPath,
    host: hostPool,
    writePolicy: g.writePolicy,
  };
  const cache = (factories.cache ?? ((c) => new HiRadixCache(c)))(config);
  const model: HiModel = {
    geometry: g,
    pageSize: ps,
    ledger,
    live: [],
    nextId: 0,
    slotContent: new Map(),
    extraLocks: [],
    executed: 0,
    hostLedger,
    hostSizeExpected,
    copySources: new Map(),
    hostContent: new Map(),
  };
  // Copies move content between the tiers; a write-through copy's source pages must outlive it.
  cache.controller.onCopy = (copy) => {
    if (copy.kind === 'write') {
      copy.device.forEach((slot, i) => {
        const content = model.slotContent.get(slot);
        if (content !== undefined) model.hostContent.set(copy.host[i] as number, content);
      });
      const pages = [...new Set(Array.from(copy.device, (slot) => Math.floor(slot / ps)))];
      model.copySources.set(copy.id, { pages, epochs: pages.map((p) => ledger.epochOf(p)) });
    } else {
      copy.host.forEach((slot, i) => {
        const content = model.hostContent.get(slot);
        if (content !== undefined) model.slotContent.set(copy.device[i] as number, content);
      });
    }
  };
  const real: HiReal = { cache, recorder, allocator, reqToToken, selfCheck: factories.cache === undefined, hostPool, extraChecks: checkTwoTier };
  return { model, real };
}

export function twoTierModelSpec(factories: TwoTierFactories = {}, fixed: Partial<HiCacheGeometry> = {}, maxCommands = kTwoTierCommandsMax): ModelSpec<HiCacheGeometry, HiModel, HiReal> {
  return {
    arbitrary: hiCacheGeometryArbitrary(fixed).chain((g) =>
      twoTierCommandArbitraries(g).chain((arbs) => fc.tuple(fc.constant(g), fc.commands(arbs, { maxCommands, size: 'max' }))),
    ),
    setup: (g) => setupTwoTier(g, factories),
    drain: drainTwoTier,
    executed: (m) => m.executed,
  };
}

export function runTwoTierModel(options: TwoTierOptions = {}): ModelRunReport<HiCacheGeometry> {
  return runCampaign(twoTierModelSpec(options.factories, options.geometry, options.maxCommands), options);
}

export function runTwoTierProgram(g: HiCacheGeometry, commands: Iterable<HiCommand>, factories: TwoTierFactories = {}): HiModel {
  return runProgram(twoTierModelSpec(factories), g, commands);
}

export function formatTwoTierFailure(report: ModelRunReport<HiCacheGeometry>, target = 'host-pool'): string {
  return formatFailure(report, target, formatHiCacheGeometry);
}
