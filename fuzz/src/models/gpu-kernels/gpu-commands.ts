import fc from 'fast-check';
import { kWorkgroupSize } from '@kvfuzz/gpu-kernels';
import { weightedArbitraries, type Weighted } from '../weighted-arbitraries.js';
import { GpuDecodeCommand } from './commands/decode-command.js';
import { GpuExtendCommand, GpuExtendToCapacityCommand } from './commands/extend-command.js';
import { GpuFinishCommand, kForeignPages } from './commands/finish-command.js';
import type { GpuKernelsCommand } from './commands/gpu-command.js';
import { gpuPageSizeOf, type GpuKernelsGeometry } from './gpu-geometry.js';
import { extendTokensArbitrary } from '../geometry-draws.js';

/** Requests per extend or decode batch: up to 9, so batches are rarely a power of two. */
export const kGpuBatchSizeMax = 9;
/** Commands per run: each one is a GPU round trip (about a millisecond on lavapipe), so runs stay short. */
export const kGpuCommandsPerRunMax = 16;
/** Empty requests padding a batch: enough to cross one scan invocation's chunk (`kWorkgroupSize` requests). */
export const kPaddingMax = 300;
/** Picks are resolved modulo the live set; this bound only keeps printed programs short. */
const kPickMax = 15;
/** Extra namings of a row's pages planted in one GPU free batch. */
const kAgainMax = 3;

if (kPaddingMax + 1 <= kWorkgroupSize) throw new Error(`kPaddingMax ${kPaddingMax} must let a batch exceed the scan's ${kWorkgroupSize} invocations`);

/** Per-run weights of each command family (STYLE 16); 0 switches a family off for the run. */
export interface GpuCommandMix {
  readonly extend: number;
  readonly capacity: number;
  readonly decode: number;
  readonly finish: number;
}

/** Each family's weight drawn per run: extends always, the others sometimes not at all. */
export const gpuCommandMixArbitrary: fc.Arbitrary<GpuCommandMix> = fc.record({
  extend: fc.integer({ min: 1, max: 4 }),
  capacity: fc.integer({ min: 0, max: 2 }),
  decode: fc.integer({ min: 0, max: 3 }),
  finish: fc.integer({ min: 0, max: 3 }),
});

const pick = fc.integer({ min: 0, max: kPickMax });

/** The command arbitraries of one run, given its geometry and mix. */
export function gpuCommandArbitraries(g: GpuKernelsGeometry, mix: GpuCommandMix): fc.Arbitrary<GpuKernelsCommand>[] {
  const ps = gpuPageSizeOf(g);
  const weighted: Weighted<GpuKernelsCommand>[] = [
    {
      weight: mix.extend,
      arbitrary: fc
        .tuple(
          fc.array(fc.record({ pick: fc.option(pick, { nil: null, freq: 3 }), tokens: extendTokensArbitrary(ps) }), { minLength: 1, maxLength: kGpuBatchSizeMax }),
          fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: kPaddingMax }), weight: 1 }),
        )
        .map(([entries, padding]) => new GpuExtendCommand(entries, padding)),
    },
    { weight: mix.capacity, arbitrary: fc.tuple(fc.option(pick, { nil: null }), fc.boolean()).map(([p, short]) => new GpuExtendToCapacityCommand(p, short)) },
    {
      weight: mix.decode,
      arbitrary: fc.array(fc.option(pick, { nil: null, freq: 6 }), { minLength: 1, maxLength: kGpuBatchSizeMax }).map((picks) => new GpuDecodeCommand(picks)),
    },
    {
      weight: mix.finish,
      arbitrary: fc
        .tuple(pick, fc.array(fc.nat({ max: 7 }), { maxLength: kAgainMax }), fc.constantFrom(...kForeignPages))
        .map(([p, again, foreign]) => new GpuFinishCommand(p, again, foreign)),
    },
  ];
  return weightedArbitraries(weighted);
}
