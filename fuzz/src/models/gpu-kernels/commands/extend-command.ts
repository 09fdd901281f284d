import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { lastSlotOf, type Holding } from '../../allocator/holding.js';
import { extendRow, scribble } from '../../allocator/model-io.js';
import { afterGpuCommand, freeListOf, resolveRequests, type BatchEntry, type ResolvedRequests } from '../gpu-model-io.js';
import type { GpuKernelsModel, GpuKernelsReal } from '../gpu-model-state.js';
import type { OpLabel } from '../../../ledger/op-label.js';
import fc from 'fast-check';
import { z } from 'zod';
import { dataListSchema, dataPickOrNullSchema, dataTokensSchema } from '../../command-bounds.js';
import { extendTokensArbitrary } from '../../geometry-draws.js';
import { gpuPageSizeOf } from '../gpu-geometry.js';
import { kGpuBatchSizeMax, kPaddingDataMax, kPaddingMax, kPickArbitrary } from '../gpu-commands.js';
import { expectSamePlan } from '../lockstep-check.js';
import { gpuCommand } from './gpu-command.js';

/**
 * Runs one extend batch on both sides: the CPU allocator's `allocExtend` and the GPU
 * `planExtend` over the free list the CPU allocator hands out from. They must answer alike
 * (`null` when short included); the ledger then records the GPU's slots, row by row. The caller
 * runs the quiet-point checks.
 *
 * @param padding - empty requests (`pre = seq = 0`) spread through the batch: wide batches cross
 *   the scan's per-invocation chunks, and empty slot ranges test the fill's request search.
 */
export async function runLockstepExtend(m: GpuKernelsModel, r: GpuKernelsReal, batch: ResolvedRequests, padding: number, op: OpLabel): Promise<void> {
  const ps = m.pageSize;
  const requestCount = batch.holdings.length;
  const n = requestCount + padding;
  const prefixLens = new Int32Array(n);
  const seqLens = new Int32Array(n);
  const lastLoc = new Int32Array(n).fill(-1);
  const tokensPerRequest = new Int32Array(n);
  const slotStart: number[] = [];
  const stride = Math.floor(padding / Math.max(1, requestCount));
  let index = 0;
  let slotRun = 0;
  let pagesNeeded = 0;
  batch.holdings.forEach((h, i) => {
    index += stride;
    const pre = h.sizeTokens;
    const seq = pre + (batch.tokens[i] as number);
    prefixLens[index] = pre;
    seqLens[index] = seq;
    lastLoc[index] = lastSlotOf(h, ps);
    tokensPerRequest[index] = seq - pre;
    slotStart.push(slotRun);
    slotRun += seq - pre;
    pagesNeeded += Math.ceil(seq / ps) - Math.ceil(pre / ps);
    index++;
  });
  const freePages = freeListOf(r);
  const availBefore = r.allocator.availableSize();
  const cpuSlots = r.allocator.allocExtend({ prefixLens, seqLens, lastLoc });
  const pending = r.kernels.planExtend({ prefixLens, seqLens, lastLoc }, ps, freePages);
  // The GPU side has copied its inputs when the call returns: overwrite them as a caller may.
  scribble(prefixLens, seqLens, lastLoc, freePages);
  const gpu = await pending;
  const cpuPageCount = (availBefore - r.allocator.availableSize()) / ps;
  expectSamePlan(op, 'planExtend', { slots: cpuSlots, pageCount: cpuPageCount }, gpu, tokensPerRequest);
  if (gpu === null) {
    if (pagesNeeded <= m.ledger.freePageCount) {
      throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pagesNeeded} needed`);
    }
  } else {
    batch.holdings.forEach((h, i) => {
      const start = slotStart[i] as number;
      const newPages = extendRow(h, gpu.slots.subarray(start, start + (batch.tokens[i] as number)), ps, op);
      m.ledger.acquire(h.id, newPages, op);
      if (batch.isNew[i] && h.sizeTokens > 0) m.live.push(h);
    });
  }
}

/**
 * An extend batch of new and live rows (unaligned prefixes, zero extends, every part of the
 * layout), padded with empty requests, on the CPU and the GPU in lock-step.
 */
export const extend = gpuCommand({
  name: 'extend',
  args: z.tuple([dataListSchema(z.strictObject({ pick: dataPickOrNullSchema, tokens: dataTokensSchema })), z.strictObject({ padding: z.int().min(0).max(kPaddingDataMax) })]),
  draws: [
    {
      family: 'extend',
      arbitrary: (g) =>
        fc
          .tuple(
            fc.array(fc.record({ pick: fc.option(kPickArbitrary, { nil: null, freq: 3 }), tokens: extendTokensArbitrary(gpuPageSizeOf(g)) }), { minLength: 1, maxLength: kGpuBatchSizeMax }),
            fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: kPaddingMax }), weight: 1 }),
          )
          .map(([entries, padding]): [BatchEntry[], { padding: number }] => [entries, { padding }]),
    },
  ],
  check: () => true,
  async run(m, r, [entries, { padding }], op) {
    await runLockstepExtend(m, r, resolveRequests(m, entries), padding, op);
    afterGpuCommand(m, r, op);
  },
});

/**
 * An extend of one request sized at run time to need exactly the free pages (`short: false`) or
 * one page more (`short: true`): both sides must agree on the capacity boundary.
 */
export const extendToCapacity = gpuCommand({
  name: 'extendToCapacity',
  args: z.tuple([z.strictObject({ pick: dataPickOrNullSchema, short: z.boolean() })]),
  draws: [{ family: 'capacity', arbitrary: () => fc.tuple(fc.option(kPickArbitrary, { nil: null }), fc.boolean()).map(([pick, short]): [{ pick: number | null; short: boolean }] => [{ pick, short }]) }],
  check: () => true,
  async run(m, r, [{ pick, short }], op) {
    const ps = m.pageSize;
    const batch = resolveRequests(m, [{ pick, tokens: 0 }]);
    const pre = (batch.holdings[0] as Holding).sizeTokens;
    const pagesWanted = m.ledger.freePageCount + (short ? 1 : 0);
    // The longest extend whose new pages are exactly pagesWanted: fill to the end of the last one.
    batch.tokens[0] = (Math.ceil(pre / ps) + pagesWanted) * ps - pre;
    await runLockstepExtend(m, r, batch, 0, op);
    afterGpuCommand(m, r, op);
  },
});
