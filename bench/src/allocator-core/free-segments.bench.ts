/**
 * `freeSegments` of one request's row, split into page-aligned, page-disjoint segments (as the
 * radix cache gives back a finished request's tail and over-allocation), after an `alloc` that
 * hands the same number of pages back out so every call starts from the same state.
 */
import { createAllocator, divExact, type FreeSegment } from '@kvfuzz/allocator-core';
import { do_not_optimize } from 'mitata';
import { benchPair, crossProduct, type TimedOp } from '../harness/bench-pair.js';
import { kGeometries, kGeometriesQuick, pageSizeOf, type Geometry } from '../harness/geometries.js';

/** The row given back: 32k tokens, a multiple of every swept page (and 64 pages of the widest). */
const kRowTokens = 32_768;
/** Pages beyond the row. */
const kSparePages = 16;

function setup(args: Geometry & { readonly segments: number }, checks: boolean): TimedOp {
  const ps = pageSizeOf(args);
  const rowPages = divExact(kRowTokens, ps);
  if (args.segments > rowPages) throw new Error(`${args.segments} segments do not fit ${rowPages} pages`);
  const allocator = createAllocator({ sizeTokens: (rowPages + kSparePages) * ps, kernelPageSize: args.kernelPage, dcpSize: args.dcp, needSort: false, checks });
  // row: the request's row; the segments are fixed views of it, refilled from each alloc.
  const row = new Int32Array(kRowTokens);
  const segments: FreeSegment[] = [];
  for (let s = 0; s < args.segments; s++) {
    const pageStart = Math.floor((s * rowPages) / args.segments);
    const pageEnd = Math.floor(((s + 1) * rowPages) / args.segments);
    segments.push({ indices: row.subarray(pageStart * ps, pageEnd * ps), startPos: pageStart * ps });
  }
  return {
    kind: 'fn',
    fn: () => {
      const slots = allocator.alloc(kRowTokens) as Int32Array;
      row.set(slots);
      allocator.freeSegments(segments);
      do_not_optimize(slots);
    },
  };
}

export default [
  benchPair({
    name: 'alloc+freeSegments $segments $dcp×$kernelPage',
    points: crossProduct({ segments: [1, 8, 64] }, kGeometries),
    pointsQuick: crossProduct({ segments: [8] }, kGeometriesQuick),
    setup,
  }),
];
