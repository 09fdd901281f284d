import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import type { AllocatorModel, AllocatorReal, Holding } from '../allocator-model-state.js';
import { acquirePages, afterCommand, extendRow, mirror, scribble } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import { printCall, type CommandData } from '../../command-data.js';

/** One request of an extend batch: an existing row (`pick`) or a new one (`null`), grown by `tokens`. */
export interface ExtendEntry {
  readonly pick: number | null;
  readonly tokens: number;
}

/** A resolved batch: distinct growable holdings (new ones not yet live) and their new lengths. */
export interface ResolvedBatch {
  readonly holdings: Holding[];
  readonly isNew: boolean[];
  readonly tokens: number[];
}

/**
 * Resolves picks to distinct growable holdings; a pick that repeats a request already in the batch,
 * or finds nothing live, opens a new row instead, so generation stays valid while shrinking.
 */
export function resolveBatch(m: AllocatorModel, entries: readonly ExtendEntry[]): ResolvedBatch {
  const growable = m.live.filter((h) => h.growable);
  const holdings: Holding[] = [];
  const isNew: boolean[] = [];
  for (const e of entries) {
    let h = e.pick === null || growable.length === 0 ? null : (growable[e.pick % growable.length] as Holding);
    if (h !== null && holdings.includes(h)) h = null;
    isNew.push(h === null);
    holdings.push(h ?? { id: m.nextId++, row: [], growable: true });
  }
  return { holdings, isNew, tokens: entries.map((e) => e.tokens) };
}

/**
 * Runs `allocExtend` for a resolved batch and checks it: capacity exact (null only when short),
 * output length, row page structure, new pages free and distinct.
 */
export function runExtend(m: AllocatorModel, r: AllocatorReal, batch: ResolvedBatch, op: string): void {
  const ps = m.pageSize;
  const n = batch.holdings.length;
  const prefixLens = new Int32Array(n);
  const seqLens = new Int32Array(n);
  const lastLoc = new Int32Array(n);
  let pagesNeeded = 0;
  let tokensTotal = 0;
  batch.holdings.forEach((h, i) => {
    const pre = h.row.length;
    const seq = pre + (batch.tokens[i] as number);
    prefixLens[i] = pre;
    seqLens[i] = seq;
    lastLoc[i] = pre === 0 ? -1 : (h.row[pre - 1] as number);
    pagesNeeded += Math.ceil(seq / ps) - Math.ceil(pre / ps);
    tokensTotal += seq - pre;
  });
  const out = mirror(r, op, (a) => a.allocExtend({ prefixLens, seqLens, lastLoc }));
  scribble(prefixLens, seqLens, lastLoc);
  if (out === null) {
    if (pagesNeeded <= m.ledger.freePageCount) {
      throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pagesNeeded} needed`);
    }
  } else {
    if (out.length !== tokensTotal) throw new LedgerViolation('output-length', `${op} returned ${out.length} slots, expected Σ(seq − prefix) = ${tokensTotal}`, 'A8');
    let offset = 0;
    batch.holdings.forEach((h, i) => {
      const tokens = batch.tokens[i] as number;
      const newPages = extendRow(h, out.subarray(offset, offset + tokens), ps, op, 'A8');
      offset += tokens;
      acquirePages(m, h.id, newPages, op);
      if (batch.isNew[i] && h.row.length > 0) m.live.push(h);
    });
  }
  afterCommand(m, r, op);
}

/** An `allocExtend` batch of 1–9 requests mixing new rows and existing ones with aligned and unaligned prefixes. */
export class ExtendCommand implements AllocatorCommand {
  constructor(readonly entries: readonly ExtendEntry[]) {}

  check(): boolean {
    return true;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    runExtend(m, r, resolveBatch(m, this.entries), this.toString());
  }

  toData(): CommandData {
    return { op: 'extend', args: [this.entries.map((e) => ({ pick: e.pick, tokens: e.tokens }))] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/**
 * An extend of one request sized at run time so that it needs exactly the free pages
 * (`short: false`) or one page more (`short: true`): the capacity boundary.
 */
export class ExtendToCapacityCommand implements AllocatorCommand {
  constructor(
    readonly pick: number | null,
    readonly short: boolean,
  ) {}

  check(): boolean {
    return true;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    const ps = m.pageSize;
    const batch = resolveBatch(m, [{ pick: this.pick, tokens: 0 }]);
    const pre = (batch.holdings[0] as Holding).row.length;
    const pagesWanted = m.ledger.freePageCount + (this.short ? 1 : 0);
    // The longest extend whose new pages are exactly pagesWanted: fill to the end of the last one.
    const seq = (Math.ceil(pre / ps) + pagesWanted) * ps;
    batch.tokens[0] = seq - pre;
    runExtend(m, r, batch, this.toString());
  }

  toData(): CommandData {
    return { op: 'extendToCapacity', args: [{ pick: this.pick, short: this.short }] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
