import { LedgerViolation } from '../../ledger/ledger-violation.js';
import type { AllocatorModel, AllocatorReal } from './allocator-model-state.js';
import { heldPagesOf, slotsOf } from './holding.js';
import { endGroupWithDeferredBad, mirror, verifyHoldings, verifyQuiet } from './model-io.js';

/**
 * The end of every run: close the group, give back every holding, and then the whole pool must be
 * free, given back exactly once per allocation, and allocatable again as every page exactly once.
 * A group holding a bad give-back accepted at the call must refuse its end; the model then clears.
 */
export function drainAllocator(m: AllocatorModel, r: AllocatorReal): void {
  const op = 'drain';
  verifyQuiet(m, r, op, true);
  if (m.deferredBad.length > 0) {
    endGroupWithDeferredBad(m, r, op);
  } else if (m.groupOpen) {
    mirror(r, op, (a) => a.freeGroupEnd());
    m.groupOpen = false;
    m.ledger.flushQueued();
  }
  verifyHoldings(m, op);
  for (const h of m.live) {
    const slots = slotsOf(h, 0, h.sizeTokens, m.pageSize);
    mirror(r, op, (a) => a.free(slots));
    m.ledger.release(h.id, heldPagesOf(h), false, op);
  }
  m.live = [];
  verifyQuiet(m, r, op, true);
  m.ledger.checkDrained();
  const ps = m.pageSize;
  const all = mirror(r, op, (a) => a.alloc(m.ledger.numPages * ps));
  // Every page is free here (availableSize said so): a null is an allocation short with the pages it needs free.
  if (all === null) throw new LedgerViolation('capacity', `after the drain alloc(${m.ledger.numPages * ps}) of the whole pool returned null`, 'A10');
  const { distinct, past, hasZero } = distinctPagesOf(all, ps, m.ledger.numPages);
  if (past !== undefined) {
    throw new LedgerViolation('page-range', `after the drain alloc(${m.ledger.numPages * ps}) of the whole pool handed out page ${past}, past numPages ${m.ledger.numPages}`, m.sizeRemainderAccepted ? 'A3' : null);
  }
  if (all.length !== m.ledger.numPages * ps || distinct !== m.ledger.numPages || hasZero) {
    // Page 0 handed out is A6's; a pool that no longer comes back as every page once is A16's.
    throw new LedgerViolation('drain', `after the drain the whole pool came back as ${distinct} distinct pages (of ${m.ledger.numPages})${hasZero ? ', page 0 among them' : ''}`, hasZero ? 'A6' : 'A16');
  }
  mirror(r, op, (a) => a.free(all));
  // The whole pool freed in one call must be the whole pool again: what is missing a free kept.
  if (r.allocator.availableSize() !== m.ledger.numPages * ps) {
    throw new LedgerViolation('available-size', `after the drain free of the whole pool availableSize() = ${r.allocator.availableSize()}, expected ${m.ledger.numPages * ps}`, 'A12');
  }
}

/**
 * The pages of `slots` (the page of every `pageSize`-th slot): how many distinct, the first past
 * `numPages`, and whether page 0 is among them. Pages in `[0, numPages]` are counted in a typed
 * array, as each run's drain does once per page; anything below 0 falls back to a set.
 */
function distinctPagesOf(slots: Int32Array, pageSize: number, numPages: number): { distinct: number; past: number | undefined; hasZero: boolean } {
  const seen = new Uint8Array(numPages + 1);
  let distinct = 0;
  for (let j = 0; j < slots.length; j += pageSize) {
    const page = Math.floor((slots[j] as number) / pageSize);
    if (page > numPages) return { distinct, past: page, hasZero: seen[0] === 1 };
    if (page < 0) return distinctPagesBySet(slots, pageSize, numPages);
    if (seen[page] === 0) {
      seen[page] = 1;
      distinct++;
    }
  }
  return { distinct, past: undefined, hasZero: seen[0] === 1 };
}

/** {@link distinctPagesOf} for any pages, negative ones included. */
function distinctPagesBySet(slots: Int32Array, pageSize: number, numPages: number): { distinct: number; past: number | undefined; hasZero: boolean } {
  const pages = new Set<number>();
  for (let j = 0; j < slots.length; j += pageSize) pages.add(Math.floor((slots[j] as number) / pageSize));
  return { distinct: pages.size, past: [...pages].find((page) => page > numPages), hasZero: pages.has(0) };
}
