import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { decodeStepOf, extendRow, scribble } from '../../allocator/model-io.js';
import { afterGpuCommand, freeListOf, resolveRequests } from '../gpu-model-io.js';
import type { GpuKernelsModel, GpuKernelsReal } from '../gpu-model-state.js';
import { expectSamePlan } from '../lockstep-check.js';
import type { GpuKernelsCommand } from './gpu-command.js';
import { printCall, type CommandData } from '../../command-data.js';

/**
 * A decode step: one token for each of several distinct rows (new rows start at length 1), some
 * crossing into a new page, on the CPU allocator's `allocDecode` and the GPU `planDecode` in
 * lock-step over the same free list.
 */
export class GpuDecodeCommand implements GpuKernelsCommand {
  constructor(readonly picks: readonly (number | null)[]) {}

  check(): boolean {
    return true;
  }

  async run(m: GpuKernelsModel, r: GpuKernelsReal): Promise<void> {
    const op = this.toString();
    const ps = m.pageSize;
    const batch = resolveRequests(m, this.picks.map((pick) => ({ pick, tokens: 1 })));
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
  }

  toData(): CommandData {
    return { op: 'decode', args: [[...this.picks]] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
