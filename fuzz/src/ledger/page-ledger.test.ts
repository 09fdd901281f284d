import { describe, expect, it } from 'vitest';
import { violationRuleOf } from '../../test/support/violation-rule.js';
import { kLedgerFree, kLedgerQueued, PageLedger } from './page-ledger.js';

describe('fuzz:ledger', () => {
  it('tracks holders and counts free pages', () => {
    const ledger = new PageLedger(4, 5);
    ledger.acquire(1, [2, 3], 'alloc');
    expect(ledger.freePageCount).toBe(3);
    expect(ledger.holderOf(2)).toBe(1);
    ledger.release(1, [3], false, 'free');
    expect(ledger.holderOf(3)).toBe(kLedgerFree);
    expect(ledger.freePageCount).toBe(4);
  });

  it('rejects handing out a held page, page 0, a page past the pool, or one page twice in a call', () => {
    const ledger = new PageLedger(4, 5);
    ledger.acquire(1, [2], 'alloc');
    expect(violationRuleOf(() => ledger.acquire(2, [2], 'alloc'))).toBe('double-alloc');
    expect(violationRuleOf(() => ledger.acquire(2, [0], 'alloc'))).toBe('page-range');
    expect(violationRuleOf(() => ledger.acquire(2, [6], 'alloc'))).toBe('page-range');
    expect(violationRuleOf(() => ledger.acquire(2, [4, 4], 'alloc'))).toBe('unique-output');
    expect(ledger.freePageCount).toBe(4);
  });

  it('rejects giving back a free page, a page twice in a call, and another holder’s page', () => {
    const ledger = new PageLedger(4, 5);
    ledger.acquire(1, [2, 3], 'alloc');
    expect(violationRuleOf(() => ledger.release(1, [4], false, 'free'))).toBe('double-free');
    expect(violationRuleOf(() => ledger.release(1, [2, 2], false, 'free'))).toBe('double-free');
    expect(violationRuleOf(() => ledger.release(7, [2], false, 'free'))).toBe('foreign-free');
    expect(ledger.heldPageCount).toBe(2);
  });

  it('queues pages given back in a group until the group ends, and sees a second give-back there', () => {
    const ledger = new PageLedger(4, 5);
    ledger.acquire(1, [2, 3], 'alloc');
    ledger.release(1, [2], true, 'free');
    expect(ledger.holderOf(2)).toBe(kLedgerQueued);
    expect(ledger.freePageCount).toBe(3);
    expect(violationRuleOf(() => ledger.release(undefined, [2], true, 'free'))).toBe('double-free');
    ledger.flushQueued();
    expect(ledger.freePageCount).toBe(4);
  });

  it('drains clean only when every page was given back once per allocation', () => {
    const ledger = new PageLedger(4, 3);
    ledger.acquire(1, [1], 'alloc');
    expect(violationRuleOf(() => ledger.checkDrained())).toBe('leak');
    ledger.release(1, [1], false, 'free');
    ledger.acquire(2, [1], 'alloc');
    ledger.release(2, [1], false, 'free');
    expect(violationRuleOf(() => ledger.checkDrained())).toBe('none');
  });

  it('keeps exactly-once accounting across restore and reset', () => {
    const ledger = new PageLedger(4, 3);
    ledger.acquire(1, [1], 'alloc');
    const snap = ledger.snapshot();
    ledger.release(1, [1], false, 'free');
    ledger.acquire(2, [1, 2], 'alloc');
    ledger.restore(snap);
    expect(ledger.holderOf(1)).toBe(1);
    expect(ledger.holderOf(2)).toBe(kLedgerFree);
    ledger.reset();
    expect(violationRuleOf(() => ledger.checkDrained())).toBe('none');
  });

  it('journals the pages given back, free or queued, only once asked to', () => {
    const ledger = new PageLedger(4, 5);
    ledger.acquire(1, [1, 2, 3], 'alloc');
    ledger.release(1, [1], false, 'free');
    expect(ledger.takeReleased()).toEqual([]);
    ledger.journalReleases();
    ledger.release(1, [3], true, 'free');
    ledger.flushQueued();
    ledger.acquire(2, [3], 'alloc');
    ledger.release(2, [3], false, 'free');
    ledger.release(1, [2], false, 'free');
    expect(ledger.takeReleased()).toEqual([3, 3, 2]);
    expect(ledger.takeReleased()).toEqual([]);
  });
});
