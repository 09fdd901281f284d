/**
 * `HostSlotPool.alloc` then `free` of a write-through mix, bookkeeping only: HiCache backs up each
 * inserted node's pages to the host pool and gives them back when the node's host copy is
 * evicted, in another order. The pool holds exactly one mix (plus the engine's extra page), so
 * every cycle merges the lazily released chunks and searches them for contiguous runs.
 *
 * Informational, not gated: a checked free must read every slot it is given where the unchecked
 * free only copies them, so no check can stay within 3% of a cycle that moves no KV. The gate is
 * the cycle with its copy (`kv-copy.bench.ts`); this ratio is tracked, and `bench:compare` flags
 * it when it regresses against an earlier run.
 *
 * Every timed call starts from one state, restored untimed (`restoreState`): each cycle leaves
 * the pool more fragmented and the checks cost per run of slots, so a pool left to drift would
 * measure whatever state a child's warm-up reached. The states: `fresh` after one cycle,
 * `fragmented` after 200 (`kStateCycles`); the mix is `cycle-workload.ts`'s.
 */
import { HostSlotPool } from '@kvfuzz/host-pool';
import { do_not_optimize } from 'mitata';
import { benchPair, crossProduct, type TimedOp } from '../harness/bench-pair.js';
import { kGeometriesQuick } from '../harness/geometries.js';
import { hostCycleWorkload, kChunks, kHostCycleName, kHostCyclePoints, stateCycles, type HostCyclePoint } from './cycle-workload.js';

function setup(args: HostCyclePoint, checks: boolean): TimedOp {
  const { pageSize, sizes, freeOrder, sizeTokens } = hostCycleWorkload(args);
  const pool = new HostSlotPool({ sizeTokens, pageSize, dcpSize: args.dcp, checks });
  const held: Int32Array[] = Array.from({ length: kChunks }, () => new Int32Array(0));
  // restored counts restores not yet used: a cycle must follow its own restore (mitata computes
  // the parameter before each timed call for calls this slow; batched, it would not).
  let restored = 0;
  // The cycle's loops are the timed function's own, so the setup's cycles warm it up too; a
  // wrapper around them reached optimized code too late for the warm-up cap.
  const fn = (p: HostSlotPool): void => {
    if (--restored !== 0) throw new Error('host-pool bench: a cycle ran without its own restore');
    for (let i = 0; i < kChunks; i++) held[i] = p.alloc(sizes[i] as number) as Int32Array;
    for (let j = 0; j < kChunks; j++) p.free(held[freeOrder[j] as number] as Int32Array);
    do_not_optimize(held[kChunks - 1]);
  };
  const warm = stateCycles(args.state);
  for (let c = 0; c < warm; c++) {
    restored++;
    fn(pool);
  }
  const snapshot = pool.backupState();
  return {
    kind: 'param',
    next: () => {
      pool.restoreState(snapshot);
      restored++;
      return pool;
    },
    fn,
  };
}

export default [
  benchPair({
    name: kHostCycleName,
    points: kHostCyclePoints,
    pointsQuick: crossProduct({ state: ['fragmented'] }, kGeometriesQuick),
    gated: false,
    setup,
  }),
];
