import { z } from 'zod';
import { dataIntSchema } from '../../command-bounds.js';
import { kPickArbitrary } from '../allocator-commands.js';
import { heldPagesOf, slotsOf } from '../holding.js';
import { afterCommand, giveBack, mirror, removeHolding, resolvePick, scribble } from '../model-io.js';
import { allocatorCommand } from './command.js';

/** Plain `free` of a whole row (every live slot, several per page): the request finished. */
export const freeRow = allocatorCommand({
  name: 'freeRow',
  args: z.tuple([dataIntSchema]),
  draws: [{ family: 'free', arbitrary: () => kPickArbitrary.map((p): [number] => [p]) }],
  check: (m) => m.live.length > 0 && m.deferredBad.length === 0,
  run(m, r, [pick], op) {
    const h = resolvePick(m, pick);
    if (h === null) return;
    const slots = slotsOf(h, 0, h.sizeTokens, m.pageSize);
    mirror(r, op, (a) => a.free(slots));
    scribble(slots);
    giveBack(m, h, heldPagesOf(h), op);
    removeHolding(m, h);
    afterCommand(m, r, op);
  },
});
