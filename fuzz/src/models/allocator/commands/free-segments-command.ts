import type { FreeSegment } from '@kvfuzz/allocator-core';
import fc from 'fast-check';
import { z } from 'zod';
import { dataIntSchema, dataListSchema } from '../../command-bounds.js';
import { kPickArbitrary } from '../allocator-commands.js';
import { heldPagesOf, slotsOf } from '../holding.js';
import { afterCommand, giveBack, mirror, removeHolding, resolvePick, scribble } from '../model-io.js';
import { allocatorCommand } from './command.js';

/**
 * `freeSegments` of a row's tail from page `keepPages` on, split at page-aligned cuts (`cuts[i]`
 * pages after the previous cut; a 0 inserts an empty segment, which must be skipped). The row keeps
 * `[0, keepPages × pageSize)`.
 */
export const freeSegments = allocatorCommand({
  name: 'freeSegments',
  args: z.tuple([dataIntSchema, z.strictObject({ keepPages: dataIntSchema, cuts: dataListSchema(dataIntSchema) })]),
  draws: [
    {
      family: 'segments',
      weight: 2,
      arbitrary: () =>
        fc
          .tuple(kPickArbitrary, fc.integer({ min: 0, max: 4 }), fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 }))
          .map(([pick, keepPages, cuts]): [number, { keepPages: number; cuts: number[] }] => [pick, { keepPages, cuts }]),
    },
  ],
  check: (m) => m.live.some((h) => h.growable) && m.deferredBad.length === 0,
  run(m, r, [pick, { keepPages, cuts }], op) {
    const ps = m.pageSize;
    const h = resolvePick(m, pick, true);
    if (h === null) return;
    const len = h.sizeTokens;
    const start = Math.min(keepPages, Math.floor((len - 1) / ps)) * ps;
    const bounds = [start];
    for (const cut of cuts) {
      const prev = bounds[bounds.length - 1] as number;
      const next = prev + cut * ps;
      if (next >= len) break;
      bounds.push(next);
    }
    bounds.push(len);
    const segments: FreeSegment[] = [];
    const copies: Int32Array[] = [];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const indices = slotsOf(h, bounds[i] as number, bounds[i + 1] as number, ps);
      copies.push(indices);
      segments.push({ indices, startPos: bounds[i] as number });
    }
    mirror(r, op, (a) => a.freeSegments(segments));
    scribble(...copies);
    giveBack(m, h, heldPagesOf(h, start / ps), op);
    h.pages.length = start / ps;
    h.heldBlocks = start / ps;
    h.sizeTokens = start;
    if (start === 0) removeHolding(m, h);
    afterCommand(m, r, op);
  },
});
