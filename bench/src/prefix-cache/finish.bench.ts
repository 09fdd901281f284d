/**
 * The finish path under heavy prefix sharing: `RadixCache.releaseRequest` of a request whose
 * prompt is a long shared system prompt (cached, locked by a resident request) plus a unique part
 * and generated tokens. Requests come in pairs with the same unique prompt, as when one prompt is
 * in flight twice, so some finishes find their prompt already cached and give the duplicate pages
 * back. Admission (match, lock, `allocExtend`, row writes) and eviction run untimed, in mitata's
 * per-call parameter; the in-line checks are the allocator's.
 */
import { ceilToPage, createAllocator } from '@kvfuzz/allocator-core';
import { newReqKvInfo, RadixCache, ReqToTokenPool, type Req } from '@kvfuzz/prefix-cache';
import { do_not_optimize } from 'mitata';
import { benchPair, crossProduct, type TimedOp } from '../harness/bench-pair.js';
import { kGeometries, kGeometriesQuick, pageSizeOf, type Geometry } from '../harness/geometries.js';
import { kBatchSamples } from '../harness/measure-settings.js';

/** Each request's own prompt part (tokens). */
const kUniqueTokens = 1024;
/** Tokens each request generated before it finished. */
const kOutputTokens = 200;
/** Speculative over-allocation past the committed tokens, given back by the finish. */
const kSpeculativeTokens = 8;
/** mitata admits up to one batch of requests before timing their finishes; plus the resident one. */
const kRowsMax = kBatchSamples + 2;
/** Distinct unique prompts before the token ids repeat (long evicted by then); keeps ids in int32. */
const kPromptIdsCycle = 32_768;
/** Distinct outputs before the token ids repeat. */
const kOutputIdsCycle = 65_536;
/** Token id bases: shared prompt ids stay below the first, prompts below the second. */
const kPromptTokenBase = 100_000;
const kOutputTokenBase = 50_000_000;
// Shared prompt ids must stay below the unique prompts', and the outputs' last id must be an int32.
if (kOutputTokenBase + kOutputIdsCycle * kOutputTokens > 2 ** 31 - 1) throw new Error('output token ids overflow int32');
if (kPromptTokenBase + kPromptIdsCycle * kUniqueTokens > kOutputTokenBase) throw new Error('prompt token ids reach the output ids');

function setup(args: Geometry & { readonly shared: number }, checks: boolean): TimedOp {
  const ps = pageSizeOf(args);
  if (args.shared % ps !== 0) throw new Error(`shared prompt ${args.shared} is not a multiple of the page ${ps}`);
  const committed = args.shared + kUniqueTokens + kOutputTokens;
  const allocated = committed + kSpeculativeTokens;
  const ownTokensMax = ceilToPage(allocated - args.shared, ps) + ps;
  // Room for every in-flight request, as much again for finished ones the tree keeps, and the shared prompt.
  const sizeTokens = ceilToPage(args.shared, ps) + 2 * kRowsMax * ownTokensMax;
  const allocator = createAllocator({ sizeTokens, kernelPageSize: args.kernelPage, dcpSize: args.dcp, needSort: false, checks });
  const reqToToken = new ReqToTokenPool(kRowsMax, ceilToPage(allocated, ps));
  const cache = new RadixCache({ allocator, reqToToken, kernelPageSize: args.kernelPage });
  /** Eviction frees a quarter of the pool at once, so its O(tree) heap build is rare. */
  const evictTokens = Math.floor(sizeTokens / 4);

  // The shared prompt, cached and locked for good by a resident request.
  const sharedTokens = Array.from({ length: args.shared }, (_, i) => i);
  cache.tree.insert({ tokens: sharedTokens, extraKey: null }, allocator.alloc(args.shared) as Int32Array);
  cache.lock(cache.matchPrefix(sharedTokens, null).lastNode);

  let nextId = 0;
  const admit = (): Req => {
    const id = nextId++;
    const tokens = new Int32Array(committed);
    for (let i = 0; i < args.shared; i++) tokens[i] = i;
    const promptBase = kPromptTokenBase + ((id >> 1) % kPromptIdsCycle) * kUniqueTokens;
    for (let i = 0; i < kUniqueTokens; i++) tokens[args.shared + i] = promptBase + i;
    const outputBase = kOutputTokenBase + (id % kOutputIdsCycle) * kOutputTokens;
    for (let i = 0; i < kOutputTokens; i++) tokens[args.shared + kUniqueTokens + i] = outputBase + i;
    if (allocator.availableSize() < ownTokensMax) cache.evict(evictTokens);
    const row = reqToToken.alloc();
    if (row === null) throw new Error(`more than ${kRowsMax} requests in flight`);
    const match = cache.matchPrefix(tokens.subarray(0, args.shared + kUniqueTokens), null);
    cache.lock(match.lastNode);
    reqToToken.write(row, 0, match.indices);
    const pre = match.indices.length;
    const lastLoc = pre === 0 ? -1 : (match.indices[pre - 1] as number);
    const slots = allocator.allocExtend({ prefixLens: [pre], seqLens: [allocated], lastLoc: [lastLoc] });
    if (slots === null) throw new Error(`pool short after eviction: ${allocator.availableSize()} free`);
    reqToToken.write(row, pre, slots);
    const kv = newReqKvInfo(row, pre);
    kv.kvCommittedLen = committed;
    kv.kvAllocatedLen = allocated;
    return { id, tokens, extraKey: null, kv, lastNode: match.lastNode };
  };
  return {
    kind: 'param',
    next: admit,
    fn: (req: Req) => {
      cache.releaseRequest(req);
      do_not_optimize(req);
    },
  };
}

export default [
  benchPair({
    name: 'releaseRequest shared $shared $dcp×$kernelPage',
    points: crossProduct({ shared: [1024, 8192] }, kGeometries),
    pointsQuick: crossProduct({ shared: [8192] }, kGeometriesQuick),
    setup,
  }),
];
