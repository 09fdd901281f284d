import fc from 'fast-check';
import { z } from 'zod';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import type { OpLabel } from '../../../ledger/op-label.js';
import { dataListSchema, dataPickOrNullSchema, dataTokensSchema } from '../../command-bounds.js';
import { extendTokensArbitrary } from '../../geometry-draws.js';
import { kBatchSizeMax, kPickArbitrary } from '../allocator-commands.js';
import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';
import { pageSizeOf } from '../geometry.js';
import { emptyHolding, lastSlotOf, type Holding } from '../holding.js';
import { acquirePages, afterCommand, extendRowFrom, mirror, scribble } from '../model-io.js';
import { allocatorCommand } from './command.js';

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
  const tokens: number[] = [];
  for (const e of entries) {
    let h = e.pick === null || growable.length === 0 ? null : (growable[e.pick % growable.length] as Holding);
    if (h !== null && holdings.includes(h)) h = null;
    isNew.push(h === null);
    holdings.push(h ?? emptyHolding(m.nextId++));
    tokens.push(e.tokens);
  }
  return { holdings, isNew, tokens };
}

/**
 * Runs `allocExtend` for a resolved batch and checks it: capacity exact (null only when short),
 * output length, row page structure, new pages free and distinct.
 */
export function runExtend(m: AllocatorModel, r: AllocatorReal, batch: ResolvedBatch, op: OpLabel): void {
  const ps = m.pageSize;
  const n = batch.holdings.length;
  const prefixLens = new Int32Array(n);
  const seqLens = new Int32Array(n);
  const lastLoc = new Int32Array(n);
  let pagesNeeded = 0;
  let tokensTotal = 0;
  for (let i = 0; i < n; i++) {
    const h = batch.holdings[i] as Holding;
    const pre = h.sizeTokens;
    const seq = pre + (batch.tokens[i] as number);
    prefixLens[i] = pre;
    seqLens[i] = seq;
    lastLoc[i] = lastSlotOf(h, ps);
    pagesNeeded += Math.ceil(seq / ps) - Math.ceil(pre / ps);
    tokensTotal += seq - pre;
  }
  const out = mirror(r, op, (a) => a.allocExtend({ prefixLens, seqLens, lastLoc }));
  scribble(prefixLens, seqLens, lastLoc);
  if (out === null) {
    if (pagesNeeded <= m.ledger.freePageCount) {
      throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pagesNeeded} needed`);
    }
  } else {
    if (out.length !== tokensTotal) throw new LedgerViolation('output-length', `${op} returned ${out.length} slots, expected Σ(seq − prefix) = ${tokensTotal}`, 'A8');
    let offset = 0;
    for (let i = 0; i < n; i++) {
      const h = batch.holdings[i] as Holding;
      const tokens = batch.tokens[i] as number;
      const newPages = extendRowFrom(h, out, offset, tokens, ps, op, 'A8');
      offset += tokens;
      acquirePages(m, h.id, newPages, op);
      if (batch.isNew[i] && h.sizeTokens > 0) m.live.push(h);
    }
  }
  afterCommand(m, r, op);
}

/** An `allocExtend` batch of 1–9 requests mixing new rows and existing ones with aligned and unaligned prefixes. */
export const extend = allocatorCommand({
  name: 'extend',
  args: z.tuple([dataListSchema(z.strictObject({ pick: dataPickOrNullSchema, tokens: dataTokensSchema }))]),
  draws: [
    {
      family: 'extend',
      weight: 2,
      arbitrary: (g) =>
        fc
          .array(fc.record({ pick: fc.option(kPickArbitrary, { nil: null, freq: 3 }), tokens: extendTokensArbitrary(pageSizeOf(g)) }), { minLength: 1, maxLength: kBatchSizeMax })
          .map((entries): [ExtendEntry[]] => [entries]),
    },
  ],
  check: () => true,
  run(m, r, [entries], op) {
    runExtend(m, r, resolveBatch(m, entries), op);
  },
});

/**
 * An extend of one request sized at run time so that it needs exactly the free pages
 * (`short: false`) or one page more (`short: true`): the capacity boundary.
 */
export const extendToCapacity = allocatorCommand({
  name: 'extendToCapacity',
  args: z.tuple([z.strictObject({ pick: dataPickOrNullSchema, short: z.boolean() })]),
  draws: [{ family: 'extend', arbitrary: () => fc.tuple(fc.option(kPickArbitrary, { nil: null }), fc.boolean()).map(([pick, short]): [{ pick: number | null; short: boolean }] => [{ pick, short }]) }],
  check: () => true,
  run(m, r, [{ pick, short }], op) {
    const ps = m.pageSize;
    const batch = resolveBatch(m, [{ pick, tokens: 0 }]);
    const pre = (batch.holdings[0] as Holding).sizeTokens;
    const pagesWanted = m.ledger.freePageCount + (short ? 1 : 0);
    // The longest extend whose new pages are exactly pagesWanted: fill to the end of the last one.
    batch.tokens[0] = (Math.ceil(pre / ps) + pagesWanted) * ps - pre;
    runExtend(m, r, batch, op);
  },
});
