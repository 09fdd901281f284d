/**
 * `allocExtend` of one prefill batch, then `free` of the pages it took (so every call starts from
 * the same state). A batch's total new tokens are bounded by the chunked-prefill budget, so a
 * larger batch means more, shorter extends; three in four requests continue a cached prefix whose
 * last page is partly used.
 */
import { ceilToPage, createAllocator } from '@kvfuzz/allocator-core';
import { do_not_optimize } from 'mitata';
import { benchPair, crossProduct, type TimedOp } from '../harness/bench-pair.js';
import { Draw } from '../harness/draw.js';
import { kGeometries, kGeometriesQuick, pageSizeOf, type Geometry } from '../harness/geometries.js';

/** New tokens per batch: SGLang's default `chunked_prefill_size` is 8192; twice that for large models' settings. */
const kExtendTokensPerBatch = 16_384;
/** Longest prefix a request continues (tokens). */
const kPrefixTokensMax = 8192;
/** Share of requests that start from an empty prefix (no `lastLoc`). */
const kFreshShare = 0.25;
/** Pages beyond the batch's need, so the allocator is never short. */
const kSparePages = 16;

function setup(args: Geometry & { readonly batch: number }, checks: boolean): TimedOp {
  const ps = pageSizeOf(args);
  const n = args.batch;
  const draw = new Draw(0x65787465 + n);
  const prefixLens = new Int32Array(n);
  const seqLens = new Int32Array(n);
  const lastLoc = new Int32Array(n);
  const extendMean = Math.max(1, Math.floor(kExtendTokensPerBatch / n));
  let prefixPages = 0;
  let newPages = 0;
  for (let i = 0; i < n; i++) {
    const pre = draw.chance(kFreshShare) ? 0 : draw.int(1, kPrefixTokensMax);
    const extend = Math.max(1, draw.int(Math.ceil(extendMean / 2), Math.ceil((3 * extendMean) / 2)));
    prefixLens[i] = pre;
    seqLens[i] = pre + extend;
    if (pre > 0) prefixPages++;
    newPages += Math.ceil((pre + extend) / ps) - Math.ceil(pre / ps);
  }
  const sizeTokens = (prefixPages + newPages + kSparePages) * ps;
  const allocator = createAllocator({ sizeTokens, kernelPageSize: args.kernelPage, dcpSize: args.dcp, needSort: false, checks });
  // Only the page holding each request's last prefix token must be held for lastLoc to be valid.
  for (let i = 0; i < n; i++) {
    const pre = prefixLens[i] as number;
    if (pre === 0) {
      lastLoc[i] = -1;
      continue;
    }
    const page = allocator.alloc(ps) as Int32Array;
    lastLoc[i] = (page[0] as number) + ((pre - 1) % ps);
  }
  // newPageFirst[j]: position in the result of the first slot of the j-th new page; freeing one
  // slot per page gives back exactly the pages the batch took, never a prefix page.
  const newPageFirst = new Int32Array(newPages);
  let out = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const pre = prefixLens[i] as number;
    const seq = seqLens[i] as number;
    const part1 = Math.min(seq, ceilToPage(pre, ps)) - pre;
    const pages = Math.ceil(seq / ps) - Math.ceil(pre / ps);
    for (let p = 0; p < pages; p++) newPageFirst[k++] = out + part1 + p * ps;
    out += seq - pre;
  }
  const freeBuf = new Int32Array(newPages);
  const batch = { prefixLens, seqLens, lastLoc };
  return {
    kind: 'fn',
    fn: () => {
      const slots = allocator.allocExtend(batch) as Int32Array;
      for (let j = 0; j < newPages; j++) freeBuf[j] = slots[newPageFirst[j] as number] as number;
      allocator.free(freeBuf);
      do_not_optimize(slots);
    },
  };
}

export default [
  benchPair({
    name: 'allocExtend+free $batch $dcp×$kernelPage',
    points: crossProduct({ batch: [1, 64, 4096] }, kGeometries),
    pointsQuick: crossProduct({ batch: [1, 4096] }, kGeometriesQuick),
    setup,
  }),
];
