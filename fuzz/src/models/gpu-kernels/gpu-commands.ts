import fc from 'fast-check';
import { kWorkgroupSize } from '@kvfuzz/gpu-kernels';
import { kDataListMax } from '../command-bounds.js';

/** Requests per extend or decode batch: up to 9, so batches are rarely a power of two. */
export const kGpuBatchSizeMax = 9;
/** Commands per run: each one is a GPU round trip (about a millisecond on lavapipe), so runs stay short. */
export const kGpuCommandsPerRunMax = 16;
/** Empty requests padding a batch: enough to cross one scan invocation's chunk (`kWorkgroupSize` requests). */
export const kPaddingMax = 300;
/**
 * Most empty requests a stored `extend` may pad its batch with: well above what the model draws
 * (`kPaddingMax`), and small enough that a padded batch stays a few kilobytes of GPU memory.
 */
export const kPaddingDataMax = 4096;
/** Picks are resolved modulo the live set; this bound only keeps printed programs short. */
const kPickMax = 15;
/** Extra namings of a row's pages planted in one GPU free batch. */
export const kAgainMax = 3;

if (kPaddingMax + 1 <= kWorkgroupSize) throw new Error(`kPaddingMax ${kPaddingMax} must let a batch exceed the scan's ${kWorkgroupSize} invocations`);
if (kPaddingMax > kPaddingDataMax) throw new Error(`kPaddingMax ${kPaddingMax} exceeds the stored bound kPaddingDataMax ${kPaddingDataMax}`);
if (kGpuBatchSizeMax > kDataListMax) throw new Error(`kGpuBatchSizeMax ${kGpuBatchSizeMax} exceeds the stored list bound kDataListMax ${kDataListMax}`);

/** A pick into the live set, as every command draws it. */
export const kPickArbitrary = fc.integer({ min: 0, max: kPickMax });

/** Per-run weights of each command family; 0 switches a family off for the run. */
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
