import fc from 'fast-check';
import { kDataListMax } from '../command-bounds.js';
import type { AllocatorOptions } from './allocator-model-state.js';

/** Requests per extend or decode batch: up to 9, so non-power-of-two batches (masked lanes) occur. */
export const kBatchSizeMax = 9;
/** Commands per run: long enough for build-ups, short enough to shrink quickly. */
export const kCommandsPerRunMax = 60;
/** Picks are resolved modulo the live set; this bound only keeps printed programs short. */
const kPickMax = 15;

if (kBatchSizeMax > kDataListMax) throw new Error(`kBatchSizeMax ${kBatchSizeMax} exceeds the stored list bound kDataListMax ${kDataListMax}`);

/** A pick into the live set, as every command draws it. */
export const kPickArbitrary = fc.integer({ min: 0, max: kPickMax });

/**
 * Per-run weights of each command family: some runs never free, some free all the
 * time, some live inside free groups. A weight of 0 switches the family off for the run.
 */
export interface CommandMix {
  readonly alloc: number;
  readonly extend: number;
  readonly decode: number;
  readonly free: number;
  readonly segments: number;
  readonly group: number;
  readonly backup: number;
  readonly clear: number;
  readonly reject: number;
}

export const commandMixArbitrary: fc.Arbitrary<CommandMix> = fc.record({
  alloc: fc.integer({ min: 0, max: 3 }),
  extend: fc.integer({ min: 1, max: 4 }),
  decode: fc.integer({ min: 0, max: 3 }),
  free: fc.integer({ min: 0, max: 4 }),
  segments: fc.integer({ min: 0, max: 3 }),
  group: fc.integer({ min: 0, max: 2 }),
  backup: fc.integer({ min: 0, max: 1 }),
  clear: fc.constantFrom(0, 0, 1),
  reject: fc.integer({ min: 0, max: 2 }),
});

/** The mix of a campaign: a per-rule report's refusal family feeds its inputs in every run, so the reject family stays on. */
export function allocatorMix(o: AllocatorOptions): fc.Arbitrary<CommandMix> {
  return o.scope.family === undefined ? commandMixArbitrary : commandMixArbitrary.map((m) => ({ ...m, reject: Math.max(1, m.reject) * 2 }));
}
