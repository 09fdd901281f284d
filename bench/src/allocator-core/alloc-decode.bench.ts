/**
 * `allocDecode` of one decode step (one new token per running request), then `free` of the pages
 * the step opened, so every call starts from the same state. A request opens a page when its new
 * length starts one; the others write after `lastLoc` in a page they hold.
 */
import { createAllocator } from '@kvfuzz/allocator-core';
import { do_not_optimize } from 'mitata';
import { benchPair, crossProduct, type TimedOp } from '../harness/bench-pair.js';
import { Draw } from '../harness/draw.js';
import { kGeometries, kGeometriesQuick, pageSizeOf, type Geometry } from '../harness/geometries.js';

/** Longest running request (tokens after the new one). */
const kSeqTokensMax = 16_384;
/** Pages beyond the step's need. */
const kSparePages = 16;

function setup(args: Geometry & { readonly batch: number }, checks: boolean): TimedOp {
  const ps = pageSizeOf(args);
  const n = args.batch;
  const draw = new Draw(0x6465636f + n);
  const seqLens = new Int32Array(n);
  const lastLoc = new Int32Array(n);
  let opening = 0;
  for (let i = 0; i < n; i++) {
    const seq = draw.int(1, kSeqTokensMax);
    seqLens[i] = seq;
    if (Math.ceil(seq / ps) !== Math.ceil((seq - 1) / ps)) opening++;
  }
  const allocator = createAllocator({ sizeTokens: (n + opening + kSparePages) * ps, kernelPageSize: args.kernelPage, dcpSize: args.dcp, needSort: false, checks });
  // The page holding position seq − 2 must be held; seq == 1 has no previous token.
  for (let i = 0; i < n; i++) {
    const seq = seqLens[i] as number;
    if (seq === 1) {
      lastLoc[i] = -1;
      continue;
    }
    const page = allocator.alloc(ps) as Int32Array;
    lastLoc[i] = (page[0] as number) + ((seq - 2) % ps);
  }
  // opener[j]: the j-th request that opens a page; its new slot is the page's first slot.
  const opener = new Int32Array(opening);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const seq = seqLens[i] as number;
    if (Math.ceil(seq / ps) !== Math.ceil((seq - 1) / ps)) opener[k++] = i;
  }
  const freeBuf = new Int32Array(opening);
  const batch = { seqLens, lastLoc };
  return {
    kind: 'fn',
    fn: () => {
      const slots = allocator.allocDecode(batch) as Int32Array;
      for (let j = 0; j < opening; j++) freeBuf[j] = slots[opener[j] as number] as number;
      allocator.free(freeBuf);
      do_not_optimize(slots);
    },
  };
}

export default [
  benchPair({
    name: 'allocDecode+free $batch $dcp×$kernelPage',
    points: crossProduct({ batch: [1, 64, 4096] }, kGeometries),
    pointsQuick: crossProduct({ batch: [1, 4096] }, kGeometriesQuick),
    setup,
  }),
];
