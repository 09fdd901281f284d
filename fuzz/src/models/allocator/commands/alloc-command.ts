import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';
import { acquirePages, afterCommand, mirror } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import { printCall, type CommandData } from '../../command-data.js';

/** `alloc(needSize)` of whole pages; the result becomes a new holding (a growable row). */
export class AllocCommand implements AllocatorCommand {
  constructor(readonly needSize: number) {}

  check(): boolean {
    return true;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    const op = this.toString();
    const ps = m.pageSize;
    const pageCount = this.needSize / ps;
    const out = mirror(r, op, (a) => a.alloc(this.needSize));
    if (out === null) {
      if (pageCount <= m.ledger.freePageCount) {
        throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pageCount} needed`);
      }
    } else {
      if (out.length !== this.needSize) throw new LedgerViolation('output-length', `${op} returned ${out.length} slots`, 'A7');
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
      if (pageCount > 0) m.live.push({ id, row: Array.from(out), growable: true });
    }
    afterCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'alloc', args: [this.needSize] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
