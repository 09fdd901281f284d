import fc from 'fast-check';
import { kDataListMax } from '../command-bounds.js';

/** Commands per run: enough for admissions, chunked prefills, decodes and finishes to interleave. */
export const kLifecycleCommandsMax = 40;
/** Largest burst of requests sharing one prefix that finish together. */
export const kBurstSizeMax = 8;
/** Picks are resolved modulo the live set; this bound only keeps printed programs short. */
const kPickMax = 15;

if (kBurstSizeMax > kDataListMax) throw new Error(`kBurstSizeMax ${kBurstSizeMax} exceeds the stored bound kDataListMax ${kDataListMax}`);

/** A pick into the live set, as every command draws it. */
export const kPickArbitrary = fc.integer({ min: 0, max: kPickMax });

/** Per-run weights of each command family: some runs mostly admit and finish, others decode, evict or split ranges. */
export interface LifecycleMix {
  readonly admit: number;
  readonly burst: number;
  readonly prefill: number;
  readonly decode: number;
  readonly spec: number;
  readonly finish: number;
  readonly evict: number;
  readonly lock: number;
  readonly swa: number;
  readonly ranges: number;
}

export const lifecycleMixArbitrary: fc.Arbitrary<LifecycleMix> = fc.record({
  admit: fc.integer({ min: 1, max: 4 }),
  burst: fc.integer({ min: 0, max: 2 }),
  prefill: fc.integer({ min: 1, max: 4 }),
  decode: fc.integer({ min: 0, max: 3 }),
  spec: fc.integer({ min: 0, max: 2 }),
  finish: fc.integer({ min: 1, max: 4 }),
  evict: fc.integer({ min: 0, max: 2 }),
  lock: fc.integer({ min: 0, max: 1 }),
  swa: fc.integer({ min: 0, max: 2 }),
  ranges: fc.integer({ min: 0, max: 2 }),
});
