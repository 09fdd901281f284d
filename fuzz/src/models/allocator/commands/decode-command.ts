import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';
import { acquirePages, afterCommand, decodeStepOf, extendRow, mirror, scribble } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import { resolveBatch } from './extend-command.js';
import { printCall, type CommandData } from '../../command-data.js';

/** An `allocDecode` batch: one token for each of several distinct rows, some crossing into a new page. */
export class DecodeCommand implements AllocatorCommand {
  constructor(readonly picks: readonly (number | null)[]) {}

  check(): boolean {
    return true;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    const op = this.toString();
    const ps = m.pageSize;
    const batch = resolveBatch(m, this.picks.map((pick) => ({ pick, tokens: 1 })));
    const { seqLens, lastLoc, pagesNeeded } = decodeStepOf(batch.holdings, ps);
    const out = mirror(r, op, (a) => a.allocDecode({ seqLens, lastLoc }));
    scribble(seqLens, lastLoc);
    if (out === null) {
      if (pagesNeeded <= m.ledger.freePageCount) {
        throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pagesNeeded} needed`);
      }
    } else {
      if (out.length !== seqLens.length) throw new LedgerViolation('output-length', `${op} returned ${out.length} slots for ${seqLens.length} requests`, 'A9');
      batch.holdings.forEach((h, i) => {
        acquirePages(m, h.id, extendRow(h, out.subarray(i, i + 1), ps, op, 'A9'), op);
        if (batch.isNew[i]) m.live.push(h);
      });
    }
    afterCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'decode', args: [[...this.picks]] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
