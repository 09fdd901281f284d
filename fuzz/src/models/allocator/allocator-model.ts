import { referenceProvider } from '@kvfuzz/allocator-core';
import { kAllocatorMutants } from '../../../mutants/allocator/catalogue.js';
import { ruleOfError } from '../../contract/rule-of-error.js';
import type { ModelDefinition } from '../model-definition.js';
import { allocatorMix, kCommandsPerRunMax } from './allocator-commands.js';
import type { AllocatorModel, AllocatorOptions, AllocatorReal } from './allocator-model-state.js';
import { setupAllocator } from './allocator-setup.js';
import { drainAllocator } from './drain.js';
import { allocatorGeometrySchema, formatGeometry, geometryArbitrary, pageSizeOf, type AllocatorGeometry, type GeometryDraws } from './geometry.js';
import { kAllocatorCommands } from './program.js';

/** The geometry draws of a campaign: a per-rule report offers a remainder or a probe only for the rule that asks for it. */
function drawsOf(o: AllocatorOptions): GeometryDraws {
  const family = o.scope.family;
  return {
    sizeExtra: family === undefined ? 'sometimes' : family === 'A3' ? 'always' : 'never',
    probe: family === undefined ? 'sometimes' : family === 'A2' || family === 'A4' ? family : 'never',
  };
}

/**
 * The allocator model: random geometries (kernel page × DCP, pool size, `needSort`, `checks`, a
 * size remainder, a configuration probe) and command mixes against a provider, the page ledger as
 * the oracle, and in exact mode the reference in lock-step.
 */
export const allocatorModel: ModelDefinition<AllocatorGeometry, AllocatorModel, AllocatorReal, AllocatorOptions> = {
  name: 'allocator',
  async: false,
  geometry: { schema: allocatorGeometrySchema, arbitrary: (fixed, o) => geometryArbitrary(fixed, drawsOf(o)), format: formatGeometry },
  mix: allocatorMix,
  commands: kAllocatorCommands,
  commandsPerRunMax: kCommandsPerRunMax,
  // The alloc draw reads the pool size (up to 8 pages); the extend draws the page size.
  arbitraryKey: (g) => `${pageSizeOf(g)}/${Math.min(g.poolPages + 1, 8)}`,
  reference: { provider: referenceProvider, mode: 'contract', scope: {} },
  modeOf: (o) => o.mode,
  setup: setupAllocator,
  drain: drainAllocator,
  ruleOf: (error) => ruleOfError('allocator', error),
  plantedBugs: kAllocatorMutants.map((m) => ({ name: m.name, mechanism: m.mechanism, options: { provider: m.provider, mode: m.mode } })),
};
