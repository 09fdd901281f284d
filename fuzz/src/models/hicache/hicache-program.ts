/**
 * The HiCache model's commands: the lifecycle builders and the tier's, named like the calls a
 * failure prints, so a shrunk failure pastes into a test as-is (see `runHiCacheProgram`), and the
 * list the model draws them from and rebuilds stored programs with (each builder's arguments
 * checked by its schema first).
 */
import fc from 'fast-check';
import { decodeCommands } from '../command-codec.js';
import type { CommandData } from '../command-data.js';
import { codecOf, drawnAs, type CommandListItem } from '../model-command.js';
import type { CapSpec } from '../prefix-cache/commands/cap-spec.js';
import type { PromptShape } from '../prefix-cache/commands/prompt-shape.js';
import { admit, burst, decode, evict, finish, kPrefixCommands, lock, prefill, rejectGappedRanges, releaseTail, specAlloc, swa, unlock } from '../prefix-cache/prefix-program.js';
import type { HiCacheCommand } from './commands/command.js';
import { ack, clearAll, evictHost, hit, hostDoubleFree, loadBack, roundTrip } from './commands/tier-commands.js';
import { kSharedPrefixArbitrary, longTokensArbitrary } from './hicache-commands.js';
import type { HiCacheGeometry } from './hicache-geometry.js';
import type { HiCacheModel, HiCacheOptions, HiCacheReal } from './hicache-state.js';

export { ack, admit, burst, clearAll, decode, evict, evictHost, finish, hit, hostDoubleFree, loadBack, lock, prefill, rejectGappedRanges, releaseTail, roundTrip, specAlloc, swa, unlock };

/** Requests on a shared prefix long enough to load back, which run and finish at once: what fills the tree. */
const populate = drawnAs(burst, [
  {
    family: 'populate',
    weight: 2,
    arbitrary: (g: HiCacheGeometry) =>
      fc
        .tuple(kSharedPrefixArbitrary, longTokensArbitrary(g, 3), fc.integer({ min: 1, max: 3 }))
        .map(([prefix, shared, count]): [PromptShape, number, CapSpec] => [{ prefix, shared, own: 1, extraKey: null }, count, { cap: 'none', n: 0 }]),
  },
]);

/** Device eviction of whole pages, as a scheduler under memory pressure does it (the lifecycle's evict, drawn on the page grid). */
const evictDevice = drawnAs(evict, [{ family: 'evictDevice', arbitrary: (g: HiCacheGeometry) => fc.integer({ min: 1, max: 4 }).map((pages): [number] => [pages * g.kernelPageSize * g.dcpSize]) }]);

/** Every command of the model, in the order a run's weighted list holds them: the lifecycle's, then the tier's. */
export const kHiCacheCommands: readonly CommandListItem<HiCacheGeometry, HiCacheModel, HiCacheReal, HiCacheOptions>[] = [
  ...kPrefixCommands,
  populate,
  roundTrip,
  hit,
  evictDevice,
  evictHost,
  loadBack,
  ack,
  clearAll,
  hostDoubleFree,
];

/** Every builder by name with the schema of its arguments: how stored data becomes commands. */
export const kHiCacheCodec = codecOf(kHiCacheCommands);

/**
 * Rebuilds HiCache commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeHiCacheCommands(data: readonly CommandData[]): HiCacheCommand[] {
  return decodeCommands(kHiCacheCodec, data);
}
