/**
 * The host pool's cycles as data, drawn the same in every process. The bookkeeping cycle
 * (`alloc-free.bench.ts`, informational): a write-through mix of node sizes and the order their
 * host copies are evicted in. The copy cycle (`kv-copy.bench.ts`, gated): a smaller mix whose
 * KV bytes fit in memory, and the device pages each node's KV is copied from.
 */
import { ceilToPage } from '@kvfuzz/allocator-core';
import { crossProduct } from '../harness/bench-pair.js';
import { Draw } from '../harness/draw.js';
import { kGeometries, pageSizeOf, type Geometry } from '../harness/geometries.js';
import { kKvBytesPerTokenMax } from './kv-models.js';

/** The bookkeeping cycle's pair name (`$state` and the geometry swept). */
export const kHostCycleName = 'alloc+free $state $dcp×$kernelPage';
/** The copy cycle's pair name. */
export const kKvCopyName = 'alloc+copy+free $state $dcp×$kernelPage';

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

/**
 * Bytes one copy cycle moves at most. The device buffer and the host pool's KV buffer each hold
 * about this much, so a child stays well under 256 MiB whatever the model.
 */
export const kCopyBytesMax = 64 * 1024 * 1024;
/** A written-back node's size range (tokens, log-uniform): one small page to a long prompt's prefix. */
const kCopyNodeTokensMin = 64;
const kCopyNodeTokensMax = 2048;
/** Nodes a copy cycle writes back at most (a bound on the draw). */
export const kCopyNodesMax = 64;
/** The widest geometry's page (slots): `kCopyBytesMax` must hold one at the largest KV a token. */
const kPageSlotsMax = 512;
if (kPageSlotsMax * kKvBytesPerTokenMax > kCopyBytesMax) throw new Error('kCopyBytesMax cannot hold one widest page at kKvBytesPerTokenMax');
for (const g of kGeometries) if (pageSizeOf(g) > kPageSlotsMax) throw new Error(`geometry ${g.dcp}×${g.kernelPage} is wider than kPageSlotsMax`);

/** The copy cycle as data: the bookkeeping cycle's fields for its smaller mix, and where each page's KV comes from. */
export interface KvCopyWorkload extends HostCycleWorkload {
  readonly kvBytesPerToken: number;
  /** `devicePages[q]`: the device page the cycle's q-th host page (in alloc order) is copied from. */
  readonly devicePages: Int32Array;
}

/**
 * The copy cycle's nodes: drawn one by one until the next would take the copy past
 * {@link kCopyBytesMax} (at least one page), and the device pages their KV sits in, in the
 * scattered order a device allocator leaves them.
 *
 * @param kvBytesPerToken - KV bytes of one token (kv-models.ts), in `[1, kKvBytesPerTokenMax]`.
 * @throws RangeError for a byte count outside that range.
 */
export function kvCopyWorkload(geometry: Geometry, kvBytesPerToken: number): KvCopyWorkload {
  if (!Number.isInteger(kvBytesPerToken) || kvBytesPerToken < 1 || kvBytesPerToken > kKvBytesPerTokenMax) {
    throw new RangeError(`kvBytesPerToken ${kvBytesPerToken} is not an integer in [1, ${kKvBytesPerTokenMax}]`);
  }
  const pageSize = pageSizeOf(geometry);
  const tokensMax = Math.floor(kCopyBytesMax / kvBytesPerToken);
  const draw = new Draw(0x6b76636f);
  const drawn: number[] = [];
  let total = 0;
  for (let i = 0; i < kCopyNodesMax; i++) {
    const size = ceilToPage(draw.logInt(kCopyNodeTokensMin, kCopyNodeTokensMax), pageSize);
    if (total + size > tokensMax) break;
    drawn.push(size);
    total += size;
  }
  // A first node too large for the budget is cut to the pages that fit (one at least, asserted above).
  if (drawn.length === 0) {
    drawn.push(Math.max(pageSize, Math.floor(tokensMax / pageSize) * pageSize));
    total = drawn[0] as number;
  }
  const sizes = Int32Array.from(drawn);
  const freeOrder = draw.permutation(sizes.length);
  const devicePages = draw.permutation(total / pageSize);
  return { pageSize, sizes, freeOrder, sizeTokens: total, kvBytesPerToken, devicePages };
}
