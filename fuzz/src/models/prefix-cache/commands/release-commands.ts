import { ceilToPage } from '@kvfuzz/allocator-core';
import type { RowRange } from '@kvfuzz/prefix-cache';
import type { LiveRequest, PrefixModel, PrefixReal } from '../prefix-model-state.js';
import { afterPrefixCommand, expectRefused, liveAt } from '../prefix-model-io.js';
import { capData, resolveCap, type CapSpec } from './cap-spec.js';
import type { PrefixCommand } from './command.js';
import { finish } from './lifecycle.js';
import { printCall, type CommandData } from '../../command-data.js';

/** A request finishes with a cap from the cap grid (see `finish` for the classic path's refusals). */
export class FinishCommand implements PrefixCommand {
  constructor(
    readonly pick: number,
    readonly cap: CapSpec,
    readonly insert: boolean,
  ) {}

  check(m: Readonly<PrefixModel>): boolean {
    return m.live.length > 0;
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const op = this.toString();
    const lr = liveAt(m, this.pick);
    if (lr !== null) {
      finish(m, r, [lr], (x) => resolveCap(this.cap, x, m), this.insert, op);
    }
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'finish', args: [this.pick, capData(this.cap), { insert: this.insert }] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** The part of a request's row it may give back while running: past its committed page and its protected prefix. */
function releasableFrom(m: PrefixModel, lr: LiveRequest): number {
  return Math.max(lr.protectedLen, ceilToPage(lr.committed, m.pageSize));
}

/**
 * Rejected speculative tokens go back: row `[from, allocated)` split at drawn points (mid-page
 * splits included), in one `releaseRanges` call that must give every page back once.
 */
export class ReleaseTailCommand implements PrefixCommand {
  constructor(
    readonly pick: number,
    readonly cuts: readonly number[],
  ) {}

  check(m: Readonly<PrefixModel>): boolean {
    return m.live.some((lr) => lr.allocated > releasableFrom(m, lr));
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const op = this.toString();
    const lr = liveAt(m, this.pick, (x) => x.allocated > releasableFrom(m, x));
    if (lr !== null) {
      const from = releasableFrom(m, lr);
      const span = lr.allocated - from;
      const points = [...new Set(this.cuts.map((c) => from + (c % span)))].filter((p) => p > from).sort((a, b) => a - b);
      const bounds = [from, ...points, lr.allocated];
      const ranges: RowRange[] = bounds.slice(1).map((end, i) => [bounds[i] as number, end]);
      r.cache.releaseRanges(lr.req, ranges);
      lr.req.kv.kvAllocatedLen = lr.allocated = from;
    }
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'releaseTail', args: [this.pick, [...this.cuts]] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** Two ranges with a gap inside one page: giving them back would free the gap's page for both; it must be refused. */
export class RejectGappedRangesCommand implements PrefixCommand {
  constructor(
    readonly pick: number,
    readonly gap: number,
  ) {}

  private static fits(m: Readonly<PrefixModel>, lr: LiveRequest): boolean {
    return m.pageSize >= 3 && lr.allocated - releasableFrom(m as PrefixModel, lr) >= 3;
  }

  check(m: Readonly<PrefixModel>): boolean {
    return m.live.some((lr) => RejectGappedRangesCommand.fits(m, lr));
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const op = this.toString();
    const lr = liveAt(m, this.pick, (x) => RejectGappedRangesCommand.fits(m, x));
    if (lr !== null) {
      const from = releasableFrom(m, lr);
      const roomInPage = Math.min(lr.allocated, from + m.pageSize) - from;
      const second = from + 2 + (this.gap % Math.max(1, roomInPage - 2));
      expectRefused(m, r, lr, op, () => r.cache.releaseRanges(lr.req, [[from, from + 1], [second, lr.allocated]]));
    }
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'rejectGappedRanges', args: [this.pick, this.gap] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

