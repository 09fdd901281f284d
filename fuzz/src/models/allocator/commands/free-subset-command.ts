import fc from 'fast-check';
import { z } from 'zod';
import { dataIntSchema, dataListSchema } from '../../command-bounds.js';
import { kPickArbitrary } from '../allocator-commands.js';
import { afterCommand, giveBack, mirror, removeHolding, resolvePick, scribble } from '../model-io.js';
import { allocatorCommand } from './command.js';

/**
 * Plain `free` of a random subset of a row's pages, passing one or all slots of each and the pages
 * in reverse row order; the row keeps holes and can no longer grow.
 */
export const freeSubset = allocatorCommand({
  name: 'freeSubset',
  args: z.tuple([dataIntSchema, dataListSchema(z.boolean()), z.strictObject({ oneSlotPerPage: z.boolean() })]),
  draws: [
    {
      family: 'free',
      arbitrary: () =>
        fc
          .tuple(kPickArbitrary, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.boolean())
          .map(([pick, mask, oneSlotPerPage]): [number, boolean[], { oneSlotPerPage: boolean }] => [pick, mask, { oneSlotPerPage }]),
    },
  ],
  check: (m, [, mask]) => m.live.length > 0 && mask.length > 0 && m.deferredBad.length === 0,
  run(m, r, [pick, mask, { oneSlotPerPage }], op) {
    const ps = m.pageSize;
    const h = resolvePick(m, pick);
    if (h === null) return;
    // The mask runs over the pages the row still holds, in row order; an empty choice takes the first.
    const blocks: number[] = [];
    let held = 0;
    for (let b = 0; b < h.pages.length; b++) {
      if ((h.pages[b] as number) < 0) continue;
      if (mask[held % mask.length]) blocks.push(b);
      held++;
    }
    if (blocks.length === 0) blocks.push(h.pages.findIndex((page) => page >= 0));
    let slotCount = 0;
    for (const b of blocks) slotCount += oneSlotPerPage ? 1 : Math.min(ps, h.sizeTokens - b * ps);
    // The pages in reverse row order, each page's slots in row order (or its last slot alone).
    const indices = new Int32Array(slotCount);
    let k = 0;
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i] as number;
      const base = ((h.pages[b] as number) - b) * ps;
      const posEnd = Math.min((b + 1) * ps, h.sizeTokens);
      for (let pos = oneSlotPerPage ? posEnd - 1 : b * ps; pos < posEnd; pos++) indices[k++] = base + pos;
    }
    const chosen = blocks.map((b) => h.pages[b] as number);
    mirror(r, op, (a) => a.free(indices));
    scribble(indices);
    giveBack(m, h, chosen, op);
    for (const b of blocks) h.pages[b] = -1;
    h.heldBlocks -= blocks.length;
    h.growable = false;
    if (h.heldBlocks === 0) removeHolding(m, h);
    afterCommand(m, r, op);
  },
});
