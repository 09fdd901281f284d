/**
 * `alloc` then `free` of a whole request mix: the scheduler admits a batch of requests, each
 * taking whole pages for its length, and gives them back as they finish, in another order.
 */
import { ceilToPage, createAllocator } from '@kvfuzz/allocator-core';
import { do_not_optimize } from 'mitata';
import { benchPair, crossProduct, type TimedOp } from '../harness/bench-pair.js';
import { Draw } from '../harness/draw.js';
import { kGeometries, kGeometriesQuick, pageSizeOf, type Geometry } from '../harness/geometries.js';

/** A request mix: how many requests, and the range of their lengths (tokens, log-uniform). */
interface RequestMix {
  readonly requests: number;
  readonly tokensMin: number;
  readonly tokensMax: number;
}

/**
 * chat: a decode batch of 32 conversations of 64 to 4096 tokens; long: 4 long-context requests
 * of 8k to 128k tokens (a few huge frees instead of many small ones).
 */
const kMixes: Readonly<Record<string, RequestMix>> = {
  chat: { requests: 32, tokensMin: 64, tokensMax: 4096 },
  long: { requests: 4, tokensMin: 8192, tokensMax: 131_072 },
};

/** Pages the pool holds beyond what one mix needs, so `alloc` never runs short. */
const kSparePages = 16;

function setup(args: Geometry & { readonly mix: string }, checks: boolean): TimedOp {
  const mix = kMixes[args.mix];
  if (mix === undefined) throw new Error(`unknown mix ${args.mix}`);
  const pageSize = pageSizeOf(args);
  const draw = new Draw(0x616c6c6f);
  const sizes = new Int32Array(mix.requests);
  for (let i = 0; i < mix.requests; i++) sizes[i] = ceilToPage(draw.logInt(mix.tokensMin, mix.tokensMax), pageSize);
  const freeOrder = draw.permutation(mix.requests);
  const sizeTokens = sizes.reduce((a, b) => a + b, 0) + kSparePages * pageSize;
  const allocator = createAllocator({ sizeTokens, kernelPageSize: args.kernelPage, dcpSize: args.dcp, needSort: false, checks });
  // held[i]: the slots of request i while the mix is admitted; one array kind, so the loop stays monomorphic.
  const held: Int32Array[] = Array.from({ length: mix.requests }, () => new Int32Array(0));
  const n = mix.requests;
  return {
    kind: 'fn',
    fn: () => {
      for (let i = 0; i < n; i++) held[i] = allocator.alloc(sizes[i] as number) as Int32Array;
      for (let j = 0; j < n; j++) allocator.free(held[freeOrder[j] as number] as Int32Array);
      do_not_optimize(held[n - 1]);
    },
  };
}

export default [
  benchPair({
    name: 'alloc+free $mix $dcp×$kernelPage',
    points: crossProduct({ mix: ['chat', 'long'] }, kGeometries),
    pointsQuick: crossProduct({ mix: ['chat'] }, kGeometriesQuick),
    setup,
  }),
];
