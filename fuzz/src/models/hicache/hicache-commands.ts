import { weightedArbitraries, type Weighted } from '../weighted-arbitraries.js';
import fc from 'fast-check';
import { BurstCommand } from '../prefix-cache/commands/admit-commands.js';
import { EvictCommand } from '../prefix-cache/commands/cache-commands.js';
import { lifecycleCommandArbitraries, lifecycleMixArbitrary } from '../prefix-cache/prefix-commands.js';
import { kSharedPrefixes } from '../prefix-cache/prompts.js';
import { AckCommand, ClearAllCommand, EvictHostCommand, HitCommand, HostDoubleFreeCommand, LoadBackCommand, RoundTripCommand, type HiCommand } from './commands/hicache-commands.js';
import type { HiCacheGeometry } from './hicache-geometry.js';

/** Commands per run: lifecycles and tier traffic interleaved. */
export const kTwoTierCommandsMax = 50;

/** Per-run weights of the tier commands (the lifecycle commands keep their own mix). */
export interface TierMix {
  readonly roundTrip: number;
  /** Requests on a shared prefix that run and finish at once: what fills the tree. */
  readonly populate: number;
  readonly hit: number;
  readonly evictDevice: number;
  readonly evictHost: number;
  readonly loadBack: number;
  readonly ack: number;
  readonly clear: number;
  readonly reject: number;
}

export const tierMixArbitrary: fc.Arbitrary<TierMix> = fc.record({
  roundTrip: fc.integer({ min: 0, max: 2 }),
  populate: fc.integer({ min: 1, max: 4 }),
  hit: fc.integer({ min: 1, max: 4 }),
  evictDevice: fc.integer({ min: 1, max: 3 }),
  evictHost: fc.integer({ min: 0, max: 2 }),
  loadBack: fc.integer({ min: 1, max: 3 }),
  ack: fc.integer({ min: 0, max: 4 }),
  clear: fc.constantFrom(0, 0, 0, 1),
  reject: fc.integer({ min: 0, max: 1 }),
});

export function twoTierCommandArbitraries(g: HiCacheGeometry): fc.Arbitrary<fc.Arbitrary<HiCommand>[]> {
  const ps = g.kernelPageSize * g.dcpSize;
  const prefix = fc.integer({ min: 0, max: kSharedPrefixes - 1 });
  const tokens = fc.integer({ min: 0, max: 4 }).map((pages) => pages * ps);
  // Shared prefixes long enough to clear the load-back threshold (10 tokens) at every page size,
  // and short enough for a row (kRowPagesMax pages).
  const minPages = Math.ceil(12 / ps);
  const longTokens = (extraMax: number): fc.Arbitrary<number> => fc.integer({ min: 0, max: extraMax }).map((extra) => Math.min(minPages + extra, 12) * ps);
  return fc.tuple(lifecycleMixArbitrary, tierMixArbitrary).map(([lifeMix, tier]) => {
    const weighted: Weighted<HiCommand>[] = [
      {
        weight: tier.populate * 2,
        arbitrary: fc
          .tuple(prefix, longTokens(3), fc.integer({ min: 1, max: 3 }))
          .map(([p, shared, count]) => new BurstCommand({ prefix: p, shared, own: 1, extraKey: null }, count, { kind: 'none', n: 0 }) as unknown as HiCommand),
      },
      { weight: tier.roundTrip, arbitrary: fc.tuple(prefix, longTokens(3), fc.integer({ min: 0, max: 16 })).map(([p, n, q]) => new RoundTripCommand(p, n, q * ps)) },
      { weight: tier.hit * 2, arbitrary: fc.tuple(prefix, fc.oneof(tokens, longTokens(3))).map(([p, n]) => new HitCommand(p, n)) },
      { weight: tier.evictDevice, arbitrary: fc.integer({ min: 1, max: 4 }).map((pages) => new EvictCommand(pages * ps) as unknown as HiCommand) },
      { weight: tier.evictHost, arbitrary: fc.integer({ min: 1, max: 4 }).map((pages) => new EvictHostCommand(pages * ps)) },
      { weight: tier.loadBack * 2, arbitrary: fc.tuple(prefix, longTokens(6), fc.integer({ min: 0, max: 16 })).map(([p, n, q]) => new LoadBackCommand(p, n, q * ps)) },
      { weight: tier.ack * 2, arbitrary: fc.integer({ min: 0, max: 15 }).map((pick) => new AckCommand(pick)) },
      { weight: tier.clear, arbitrary: fc.constant(new ClearAllCommand()) },
      { weight: tier.reject, arbitrary: fc.integer({ min: 0, max: 63 }).map((n) => new HostDoubleFreeCommand(n)) },
    ];
    const tierArbs = weightedArbitraries(weighted);
    return [...(lifecycleCommandArbitraries(g, lifeMix) as unknown as fc.Arbitrary<HiCommand>[]), ...tierArbs];
  });
}
