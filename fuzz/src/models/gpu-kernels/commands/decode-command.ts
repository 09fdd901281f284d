import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { decodeStepOf, extendRow, scribble } from '../../allocator/model-io.js';
import { afterGpuCommand, freeListOf, resolveRequests } from '../gpu-model-io.js';
import fc from 'fast-check';
import { z } from 'zod';
import { dataListSchema, dataPickOrNullSchema } from '../../command-bounds.js';
import { kGpuBatchSizeMax, kPickArbitrary } from '../gpu-commands.js';
import { expectSamePlan } from '../lockstep-check.js';
import { gpuCommand } from './gpu-command.js';

/**
 * A decode step: one token for each of several distinct rows (new rows start at length 1), some
 * crossing into a new page, on the CPU allocator's `allocDecode` and the GPU `planDecode` in
 * lock-step over the same free list.
 */
export const decode = gpuCommand({
  name: 'decode',
  args: z.tuple([dataListSchema(dataPickOrNullSchema)]),
  draws: [
    {
      family: 'decode',
      arbitrary: () => fc.array(fc.option(kPickArbitrary, { nil: null, freq: 6 }), { minLength: 1, maxLength: kGpuBatchSizeMax }).map((picks): [(number | null)[]] => [picks]),
    },
  ],
  check: () => true,
  async run(m, r, [picks], op) {
    const ps = m.pageSize;
    const batch = resolveRequests(m, picks.map((pick) => ({ pick, tokens: 1 })));
    const { seqLens, lastLoc, pagesNeeded } = decodeStepOf(batch.holdings, ps);
    const freePages = freeListOf(r);
    const availBefore = r.allocator.availableSize();
    const cpuSlots = r.allocator.allocDecode({ seqLens, lastLoc });
    const pending = r.kernels.planDecode({ seqLens, lastLoc }, ps, freePages);
    scribble(seqLens, lastLoc, freePages);
    const gpu = await pending;
    const cpuPageCount = (availBefore - r.allocator.availableSize()) / ps;
    expectSamePlan(op, 'planDecode', { slots: cpuSlots, pageCount: cpuPageCount }, gpu, new Int32Array(seqLens.length).fill(1));
    if (gpu === null) {
      if (pagesNeeded <= m.ledger.freePageCount) {
        throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pagesNeeded} needed`);
      }
    } else {
      batch.holdings.forEach((h, i) => {
        m.ledger.acquire(h.id, extendRow(h, gpu.slots.subarray(i, i + 1), ps, op), op);
        if (batch.isNew[i]) m.live.push(h);
      });
    }
    afterGpuCommand(m, r, op);
  },
});
