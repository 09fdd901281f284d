import type { FreeSegment } from '@kvfuzz/allocator-core';
import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';
import { afterCommand, giveBack, mirror, pagesOfRow, removeHolding, resolvePick, scribble } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import { printCall, type CommandData } from '../../command-data.js';

/**
 * `freeSegments` of a row's tail from page `keepPages` on, split at page-aligned cuts (`cuts[i]`
 * pages after the previous cut; a 0 inserts an empty segment, which must be skipped). The row keeps
 * `[0, keepPages × pageSize)`.
 */
export class FreeSegmentsCommand implements AllocatorCommand {
  constructor(
    readonly pick: number,
    readonly keepPages: number,
    readonly cuts: readonly number[],
  ) {}

  check(m: Readonly<AllocatorModel>): boolean {
    return m.live.some((h) => h.growable) && m.deferredBad.length === 0;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    const op = this.toString();
    const ps = m.pageSize;
    const h = resolvePick(m, this.pick, true);
    if (h === null) return;
    const len = h.row.length;
    const start = Math.min(this.keepPages, Math.floor((len - 1) / ps)) * ps;
    const bounds = [start];
    for (const cut of this.cuts) {
      const prev = bounds[bounds.length - 1] as number;
      const next = prev + cut * ps;
      if (next >= len) break;
      bounds.push(next);
    }
    bounds.push(len);
    const segments: FreeSegment[] = [];
    const copies: Int32Array[] = [];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const indices = Int32Array.from(h.row.slice(bounds[i], bounds[i + 1]));
      copies.push(indices);
      segments.push({ indices, startPos: bounds[i] as number });
    }
    mirror(r, op, (a) => a.freeSegments(segments));
    scribble(...copies);
    giveBack(m, h, pagesOfRow(h.row.slice(start), ps), op);
    h.row.length = start;
    if (start === 0) removeHolding(m, h);
    afterCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'freeSegments', args: [this.pick, { keepPages: this.keepPages, cuts: [...this.cuts] }] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
