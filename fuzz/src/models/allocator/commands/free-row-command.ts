import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';
import { afterCommand, giveBack, mirror, pagesOfRow, removeHolding, resolvePick, scribble } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import { printCall, type CommandData } from '../../command-data.js';

/** Plain `free` of a whole row (every live slot, several per page): the request finished. */
export class FreeRowCommand implements AllocatorCommand {
  constructor(readonly pick: number) {}

  check(m: Readonly<AllocatorModel>): boolean {
    return m.live.length > 0 && m.deferredBad.length === 0;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    const op = this.toString();
    const h = resolvePick(m, this.pick);
    if (h === null) return;
    const slots = Int32Array.from(h.row.filter((s) => s >= 0));
    mirror(r, op, (a) => a.free(slots));
    scribble(slots);
    giveBack(m, h, pagesOfRow(h.row, m.pageSize), op);
    removeHolding(m, h);
    afterCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'freeRow', args: [this.pick] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
