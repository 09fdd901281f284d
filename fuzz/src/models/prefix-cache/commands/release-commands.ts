import { ceilToPage } from '@kvfuzz/allocator-core';
import type { RowRange } from '@kvfuzz/prefix-cache';
import fc from 'fast-check';
import { z } from 'zod';
import { dataIntSchema, dataListSchema } from '../../command-bounds.js';
import { prefixPageSizeOf } from '../geometry.js';
import { kPickArbitrary } from '../prefix-commands.js';
import { liveAt } from '../live-set.js';
import { afterPrefixCommand, expectRefused } from '../prefix-model-io.js';
import type { LiveRequest, PrefixModel } from '../prefix-model-state.js';
import { capArbitrary, capSchema, resolveCap, type CapSpec } from './cap-spec.js';
import { prefixCommand } from './command.js';
import { finishRequests } from './lifecycle.js';

/**
 * A request finishes with a cap from the cap grid (see `finishRequests` for the classic path's
 * refusals), inserting its tokens into the tree or not.
 */
export const finish = prefixCommand({
  name: 'finish',
  args: z.tuple([dataIntSchema, capSchema, z.strictObject({ insert: z.boolean() })]),
  draws: [
    // The inserting finish (the engine's usual one) twice as often as the one that caches nothing.
    { family: 'finish', weight: 2, arbitrary: () => fc.tuple(kPickArbitrary, capArbitrary).map(([pick, cap]): [number, CapSpec, { insert: boolean }] => [pick, cap, { insert: true }]) },
    { family: 'finish', arbitrary: () => fc.tuple(kPickArbitrary, capArbitrary).map(([pick, cap]): [number, CapSpec, { insert: boolean }] => [pick, cap, { insert: false }]) },
  ],
  check: (m) => m.live.length > 0,
  run(m, r, [pick, cap, { insert }], op) {
    const lr = liveAt(m, pick);
    if (lr !== null) finishRequests(m, r, [lr], (x) => resolveCap(cap, x, m), insert, op);
    afterPrefixCommand(m, r, op);
  },
});

/** The part of a request's row it may give back while running: past its committed page and its protected prefix. */
function releasableFrom(m: Readonly<PrefixModel>, lr: LiveRequest): number {
  return Math.max(lr.protectedLen, ceilToPage(lr.committed, m.pageSize));
}

/**
 * Rejected speculative tokens go back: row `[from, allocated)` split at drawn points (mid-page
 * splits included), in one `releaseRanges` call that must give every page back once.
 */
export const releaseTail = prefixCommand({
  name: 'releaseTail',
  args: z.tuple([dataIntSchema, dataListSchema(dataIntSchema)]),
  draws: [{ family: 'ranges', arbitrary: (g) => fc.tuple(kPickArbitrary, fc.array(fc.integer({ min: 0, max: 4 * prefixPageSizeOf(g) }), { maxLength: 4 })) }],
  check: (m) => m.live.some((lr) => lr.allocated > releasableFrom(m, lr)),
  run(m, r, [pick, cuts], op) {
    const lr = liveAt(m, pick, (x) => x.allocated > releasableFrom(m, x));
    if (lr !== null) {
      const from = releasableFrom(m, lr);
      const span = lr.allocated - from;
      const points = [...new Set(cuts.map((c) => from + (c % span)))].filter((p) => p > from).sort((a, b) => a - b);
      const bounds = [from, ...points, lr.allocated];
      const ranges: RowRange[] = bounds.slice(1).map((end, i) => [bounds[i] as number, end]);
      r.cache.releaseRanges(lr.req, ranges);
      lr.req.kv.kvAllocatedLen = lr.allocated = from;
    }
    afterPrefixCommand(m, r, op);
  },
});

/** Whether a request has room past its releasable point for two ranges with a gap inside one page. */
function fitsGap(m: Readonly<PrefixModel>, lr: LiveRequest): boolean {
  return m.pageSize >= 3 && lr.allocated - releasableFrom(m, lr) >= 3;
}

/** Two ranges with a gap inside one page: giving them back would free the gap's page for both; it must be refused. */
export const rejectGappedRanges = prefixCommand({
  name: 'rejectGappedRanges',
  args: z.tuple([dataIntSchema, dataIntSchema]),
  draws: [{ family: 'ranges', arbitrary: (g) => fc.tuple(kPickArbitrary, fc.integer({ min: 0, max: prefixPageSizeOf(g) })) }],
  check: (m) => m.live.some((lr) => fitsGap(m, lr)),
  run(m, r, [pick, gap], op) {
    const lr = liveAt(m, pick, (x) => fitsGap(m, x));
    if (lr !== null) {
      const from = releasableFrom(m, lr);
      const roomInPage = Math.min(lr.allocated, from + m.pageSize) - from;
      const second = from + 2 + (gap % Math.max(1, roomInPage - 2));
      expectRefused(m, r, lr, op, () => r.cache.releaseRanges(lr.req, [[from, from + 1], [second, lr.allocated]]));
    }
    afterPrefixCommand(m, r, op);
  },
});
