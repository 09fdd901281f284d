/**
 * `HostSlotPool.alloc` then `free` of a write-through mix: HiCache backs up each inserted node's
 * pages to the host pool and gives them back when the node's host copy is evicted, in another
 * order. The pool holds exactly one mix (plus the engine's extra page), so every cycle merges the
 * lazily released chunks and searches them for contiguous runs.
 */
import { ceilToPage } from '@kvfuzz/allocator-core';
import { HostSlotPool } from '@kvfuzz/host-pool';
import { do_not_optimize } from 'mitata';
import { benchPair, type TimedOp } from '../harness/bench-pair.js';
import { Draw } from '../harness/draw.js';
import { kGeometries, kGeometriesQuick, pageSizeOf, type Geometry } from '../harness/geometries.js';

/** Nodes backed up per cycle. */
const kChunks = 32;
/** A node's size range (tokens, log-uniform): from one small page to a long prompt. */
const kChunkTokensMin = 64;
const kChunkTokensMax = 8192;

function setup(args: Geometry, checks: boolean): TimedOp {
  const ps = pageSizeOf(args);
  const draw = new Draw(0x686f7374);
  const sizes = new Int32Array(kChunks);
  for (let i = 0; i < kChunks; i++) sizes[i] = ceilToPage(draw.logInt(kChunkTokensMin, kChunkTokensMax), ps);
  const freeOrder = draw.permutation(kChunks);
  const pool = new HostSlotPool({ sizeTokens: sizes.reduce((a, b) => a + b, 0), pageSize: ps, dcpSize: args.dcp, checks });
  const held: Int32Array[] = Array.from({ length: kChunks }, () => new Int32Array(0));
  return {
    kind: 'fn',
    fn: () => {
      for (let i = 0; i < kChunks; i++) held[i] = pool.alloc(sizes[i] as number) as Int32Array;
      for (let j = 0; j < kChunks; j++) pool.free(held[freeOrder[j] as number] as Int32Array);
      do_not_optimize(held[kChunks - 1]);
    },
  };
}

export default [
  benchPair({
    name: 'alloc+free $dcp×$kernelPage',
    points: kGeometries,
    pointsQuick: kGeometriesQuick,
    setup,
  }),
];
