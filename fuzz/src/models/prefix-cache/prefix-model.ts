import { createAllocator } from '@kvfuzz/allocator-core';
import { RadixCache, ReqToTokenPool } from '@kvfuzz/prefix-cache';
import { kPrefixCacheMutants } from '../../../mutants/prefix-cache/catalogue.js';
import { PageLedger } from '../../ledger/page-ledger.js';
import { RecordingAllocator } from '../../ledger/recording-allocator.js';
import type { ModelDefinition } from '../model-definition.js';
import { formatPrefixGeometry, kRowPagesMax, prefixGeometryArbitrary, prefixGeometrySchema, prefixPageSizeOf, type PrefixGeometry } from './geometry.js';
import { kLifecycleCommandsMax, lifecycleMixArbitrary } from './prefix-commands.js';
import { drainPrefix } from './prefix-drain.js';
import type { CacheFactory, PrefixModel, PrefixOptions, PrefixReal } from './prefix-model-state.js';
import { kPrefixCommands } from './prefix-program.js';
import { RowReferences } from './row-references.js';
import { SlotContents } from './slot-contents.js';

/** The reference cache: the only one whose own tree check runs (a planted bug must be caught without it). */
export const referenceCache: CacheFactory = (config) => new RadixCache(config);

/** A run's empty model: no request live, an empty ledger that journals what it is given back. */
export function newPrefixModel<G extends PrefixGeometry>(g: G): PrefixModel & { readonly geometry: G } {
  const ps = prefixPageSizeOf(g);
  const ledger = new PageLedger(ps, g.poolPages);
  ledger.journalReleases();
  return {
    geometry: g,
    pageSize: ps,
    ledger,
    live: [],
    touched: new Set(),
    references: new RowReferences(ps, g.poolPages),
    nextId: 0,
    slotContent: new SlotContents((g.poolPages + 1) * ps),
    extraLocks: [],
    executed: 0,
  };
}

/** A run's model and real side: the cache under test over a recording allocator, and an empty ledger. */
export function setupPrefix(g: PrefixGeometry, factory: CacheFactory = referenceCache): { model: PrefixModel; real: PrefixReal } {
  const model = newPrefixModel(g);
  const ps = model.pageSize;
  const allocator = createAllocator({ sizeTokens: g.poolPages * ps, kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: g.needSort, checks: g.checks });
  const recorder = new RecordingAllocator(allocator, model.ledger);
  const reqToToken = new ReqToTokenPool(g.rowCount, kRowPagesMax * ps);
  const cache = factory({ allocator: recorder, reqToToken, kernelPageSize: g.kernelPageSize, evictionPolicy: g.evictionPolicy, finishPath: g.finishPath });
  return { model, real: { cache, recorder, allocator, reqToToken, selfCheck: factory === referenceCache } };
}

/**
 * The request-lifecycle model: random geometries (kernel page × DCP, pool, rows, finish path,
 * eviction policy, grouped finishes) and lifecycles against a `RadixCache` over a recording
 * allocator, the page ledger and the content each slot holds as the oracle.
 */
export const prefixCacheModel: ModelDefinition<PrefixGeometry, PrefixModel, PrefixReal, PrefixOptions> = {
  name: 'prefix-cache',
  async: false,
  geometry: { schema: prefixGeometrySchema, arbitrary: (fixed) => prefixGeometryArbitrary(fixed), format: formatPrefixGeometry },
  mix: () => lifecycleMixArbitrary,
  commands: kPrefixCommands,
  commandsPerRunMax: kLifecycleCommandsMax,
  // The token draws read the two page grids.
  arbitraryKey: (g) => `${g.kernelPageSize}x${g.dcpSize}`,
  reference: { cache: referenceCache },
  modeOf: () => 'contract',
  setup: (g, o) => setupPrefix(g, o.cache),
  drain: drainPrefix,
  plantedBugs: kPrefixCacheMutants.map((m) => ({ name: m.name, mechanism: m.mechanism, options: { cache: m.create }, geometry: m.geometry })),
};
