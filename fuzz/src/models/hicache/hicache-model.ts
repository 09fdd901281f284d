import { createAllocator } from '@kvfuzz/allocator-core';
import { HiRadixCache, type HiRadixCacheConfig } from '@kvfuzz/hicache';
import { HostSlotPool, type HostSlotPoolConfig } from '@kvfuzz/host-pool';
import { ReqToTokenPool } from '@kvfuzz/prefix-cache';
import { kHostPoolMutants } from '../../../mutants/host-pool/catalogue.js';
import { PageLedger } from '../../ledger/page-ledger.js';
import { RecordingAllocator } from '../../ledger/recording-allocator.js';
import { RecordingHostPool } from '../../ledger/recording-host-pool.js';
import type { ModelDefinition } from '../model-definition.js';
import { kRowPagesMax } from '../prefix-cache/geometry.js';
import { newPrefixModel } from '../prefix-cache/prefix-model.js';
import { SlotContents } from '../prefix-cache/slot-contents.js';
import { checkHiCache } from './hicache-checks.js';
import { hiCacheMixArbitrary, kHiCacheCommandsMax } from './hicache-commands.js';
import { drainHiCache } from './hicache-drain.js';
import { formatHiCacheGeometry, hiCacheGeometryArbitrary, hiCacheGeometrySchema, type HiCacheGeometry } from './hicache-geometry.js';
import { kHiCacheCommands } from './hicache-program.js';
import type { HiCacheFactories, HiCacheModel, HiCacheOptions, HiCacheReal } from './hicache-state.js';

/** A run's model and real side: a `HiRadixCache` over a recording allocator and a recording host pool, two empty ledgers. */
export function setupHiCache(g: HiCacheGeometry, factories: HiCacheFactories = {}): { model: HiCacheModel; real: HiCacheReal } {
  const device = newPrefixModel(g);
  const { pageSize: ps, ledger } = device;
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
  const model: HiCacheModel = {
    ...device,
    hostLedger,
    hostSizeExpected,
    copySources: new Map(),
    hostContent: new SlotContents(hostSizeExpected),
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
  const real: HiCacheReal = { cache, recorder, allocator, reqToToken, selfCheck: factories.cache === undefined, hostPool, extraChecks: (op, wholeStructure) => checkHiCache(model, real, op, wholeStructure) };
  return { model, real };
}

/**
 * The HiCache model: the lifecycle model's commands and checks over a `HiRadixCache` whose host
 * tier is a `HostSlotPool` behind a second ledger, plus the tier commands (write-through hits, host
 * eviction, load-back, acks in any order, round trips).
 */
export const hiCacheModel: ModelDefinition<HiCacheGeometry, HiCacheModel, HiCacheReal, HiCacheOptions> = {
  name: 'hicache',
  async: false,
  geometry: { schema: hiCacheGeometrySchema, arbitrary: (fixed) => hiCacheGeometryArbitrary(fixed), format: formatHiCacheGeometry },
  mix: () => hiCacheMixArbitrary,
  commands: kHiCacheCommands,
  commandsPerRunMax: kHiCacheCommandsMax,
  // The token draws read the two page grids.
  arbitraryKey: (g) => `${g.kernelPageSize}x${g.dcpSize}`,
  reference: { factories: {} },
  modeOf: () => 'contract',
  setup: (g, o) => setupHiCache(g, o.factories),
  drain: drainHiCache,
  plantedBugs: kHostPoolMutants.map((m) => ({ name: m.name, mechanism: m.mechanism, options: { factories: m.factories }, geometry: m.geometry })),
};
