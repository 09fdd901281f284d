import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';
import { afterCommand, giveBack, mirror, pagesOfRow, removeHolding, resolvePick, scribble } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import { printCall, type CommandData } from '../../command-data.js';

/**
 * Plain `free` of a random subset of a row's pages, passing one or all slots of each and the pages
 * in reverse row order; the row keeps holes and can no longer grow.
 */
export class FreeSubsetCommand implements AllocatorCommand {
  constructor(
    readonly pick: number,
    readonly mask: readonly boolean[],
    readonly oneSlotPerPage: boolean,
  ) {}

  check(m: Readonly<AllocatorModel>): boolean {
    return m.live.length > 0 && this.mask.length > 0 && m.deferredBad.length === 0;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    const op = this.toString();
    const ps = m.pageSize;
    const h = resolvePick(m, this.pick);
    if (h === null) return;
    const pages = pagesOfRow(h.row, ps);
    let chosen = pages.filter((_, i) => this.mask[i % this.mask.length]);
    if (chosen.length === 0) chosen = pages.slice(0, 1);
    const slots: number[] = [];
    for (const page of chosen.slice().reverse()) {
      const ofPage = h.row.filter((s) => s >= 0 && Math.floor(s / ps) === page);
      slots.push(...(this.oneSlotPerPage ? ofPage.slice(-1) : ofPage));
    }
    const indices = Int32Array.from(slots);
    mirror(r, op, (a) => a.free(indices));
    scribble(indices);
    giveBack(m, h, chosen, op);
    h.row = h.row.map((s) => (s >= 0 && chosen.includes(Math.floor(s / ps)) ? -1 : s));
    h.growable = false;
    if (h.row.every((s) => s < 0)) removeHolding(m, h);
    afterCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'freeSubset', args: [this.pick, [...this.mask], { oneSlotPerPage: this.oneSlotPerPage }] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
