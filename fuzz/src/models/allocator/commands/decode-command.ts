import fc from 'fast-check';
import { z } from 'zod';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { dataListSchema, dataPickOrNullSchema } from '../../command-bounds.js';
import { kBatchSizeMax, kPickArbitrary } from '../allocator-commands.js';
import type { Holding } from '../holding.js';
import { acquirePages, afterCommand, decodeStepOf, extendRowFrom, mirror, scribble } from '../model-io.js';
import { allocatorCommand } from './command.js';
import { resolveBatch } from './extend-command.js';

/** An `allocDecode` batch: one token for each of several distinct rows, some crossing into a new page. */
export const decode = allocatorCommand({
  name: 'decode',
  args: z.tuple([dataListSchema(dataPickOrNullSchema)]),
  draws: [
    {
      family: 'decode',
      arbitrary: () => fc.array(fc.option(kPickArbitrary, { nil: null, freq: 6 }), { minLength: 1, maxLength: kBatchSizeMax }).map((picks): [(number | null)[]] => [picks]),
    },
  ],
  check: () => true,
  run(m, r, [picks], op) {
    const ps = m.pageSize;
    const batch = resolveBatch(
      m,
      picks.map((pick) => ({ pick, tokens: 1 })),
    );
    const { seqLens, lastLoc, pagesNeeded } = decodeStepOf(batch.holdings, ps);
    const out = mirror(r, op, (a) => a.allocDecode({ seqLens, lastLoc }));
    scribble(seqLens, lastLoc);
    if (out === null) {
      if (pagesNeeded <= m.ledger.freePageCount) {
        throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pagesNeeded} needed`);
      }
    } else {
      if (out.length !== seqLens.length) throw new LedgerViolation('output-length', `${op} returned ${out.length} slots for ${seqLens.length} requests`, 'A9');
      for (let i = 0; i < batch.holdings.length; i++) {
        const h = batch.holdings[i] as Holding;
        acquirePages(m, h.id, extendRowFrom(h, out, i, 1, ps, op, 'A9'), op);
        if (batch.isNew[i]) m.live.push(h);
      }
    }
    afterCommand(m, r, op);
  },
});
