import fc from 'fast-check';
import { z } from 'zod';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { dataTokensSchema } from '../../command-bounds.js';
import { pageSizeOf } from '../geometry.js';
import { acquirePages, afterCommand, mirror } from '../model-io.js';
import { allocatorCommand } from './command.js';

/** `alloc(needSize)` of whole pages; the result becomes a new holding (a growable row). */
export const alloc = allocatorCommand({
  name: 'alloc',
  args: z.tuple([dataTokensSchema]),
  draws: [{ family: 'alloc', arbitrary: (g) => fc.integer({ min: 0, max: Math.min(g.poolPages + 1, 8) }).map((k): [number] => [k * pageSizeOf(g)]) }],
  check: () => true,
  run(m, r, [needSize], op) {
    const ps = m.pageSize;
    const pageCount = needSize / ps;
    const out = mirror(r, op, (a) => a.alloc(needSize));
    if (out === null) {
      if (pageCount <= m.ledger.freePageCount) {
        throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pageCount} needed`);
      }
    } else {
      if (out.length !== needSize) throw new LedgerViolation('output-length', `${op} returned ${out.length} slots`, 'A7');
      const pages: number[] = [];
      for (let j = 0; j < pageCount; j++) {
        const page = Math.floor((out[j * ps] as number) / ps);
        for (let o = 0; o < ps; o++) {
          if (out[j * ps + o] !== page * ps + o) {
            throw new LedgerViolation('row-structure', `${op} returned slot ${out[j * ps + o]} at ${j * ps + o}, expected ${page * ps + o} (whole pages in order)`, 'A7');
          }
        }
        pages.push(page);
      }
      const id = m.nextId++;
      acquirePages(m, id, pages, op);
      if (pageCount > 0) m.live.push({ id, pages, sizeTokens: needSize, heldBlocks: pageCount, growable: true });
    }
    afterCommand(m, r, op);
  },
});
