/**
 * The host pool's alloc/free cycle as data: a write-through mix of node sizes and the order their
 * host copies are evicted in, drawn the same in every process. The bench (`alloc-free.bench.ts`)
 * times the cycle in its two variants.
 */
import { ceilToPage } from '@kvfuzz/allocator-core';
import { crossProduct } from '../harness/bench-pair.js';
import { Draw } from '../harness/draw.js';
import { kGeometries, pageSizeOf, type Geometry } from '../harness/geometries.js';

/** The bench file that times the cycle, and its pair's name (`$state` and the geometry swept). */
export const kHostCycleFile = 'host-pool/alloc-free.bench.ts';
export const kHostCycleName = 'alloc+free $state $dcp×$kernelPage';

/** Nodes backed up per cycle. */
export const kChunks = 32;
/** A node's size range (tokens, log-uniform): from one small page to a long prompt. */
const kChunkTokensMin = 64;
const kChunkTokensMax = 8192;
/** Cycles run before the snapshot of each state: `fragmented` leaves a cycle's allocations at page 1 in 5,000–6,000 runs. */
export const kStateCycles: Readonly<Record<string, number>> = { fresh: 1, fragmented: 200 };

/** One point of the cycle: a pool state and a geometry. */
export interface HostCyclePoint extends Geometry {
  readonly state: string;
}

/** Every state at every geometry, the state varying slowest: the bench's full sweep. */
export const kHostCyclePoints: readonly HostCyclePoint[] = crossProduct({ state: Object.keys(kStateCycles) }, kGeometries);

export interface HostCycleWorkload {
  /** The host page (slots). */
  readonly pageSize: number;
  /** `sizes[i]`: the slots node `i` backs up (a page multiple). */
  readonly sizes: Int32Array;
  /** The order the nodes' host copies are freed in. */
  readonly freeOrder: Int32Array;
  /** The pool's requested size: exactly one mix (the pool adds the engine's extra page). */
  readonly sizeTokens: number;
}

export function hostCycleWorkload(geometry: Geometry): HostCycleWorkload {
  const pageSize = pageSizeOf(geometry);
  const draw = new Draw(0x686f7374);
  const sizes = new Int32Array(kChunks);
  for (let i = 0; i < kChunks; i++) sizes[i] = ceilToPage(draw.logInt(kChunkTokensMin, kChunkTokensMax), pageSize);
  const freeOrder = draw.permutation(kChunks);
  return { pageSize, sizes, freeOrder, sizeTokens: sizes.reduce((a, b) => a + b, 0) };
}

/** The cycles to run before a state's snapshot; throws for a state that is not one of {@link kStateCycles}. */
export function stateCycles(state: string): number {
  const cycles = kStateCycles[state];
  if (cycles === undefined) throw new Error(`unknown host pool state ${state} (one of ${Object.keys(kStateCycles).join(', ')})`);
  return cycles;
}
