import fc from 'fast-check';
import { z } from 'zod';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { dataIntSchema, dataTokensSchema } from '../../command-bounds.js';
import { noArgs } from '../../model-command.js';
import { admitRequest, finishRequests, prefillChunk } from '../../prefix-cache/commands/lifecycle.js';
import { clearLive } from '../../prefix-cache/live-set.js';
import { afterPrefixCommand } from '../../prefix-cache/prefix-model-io.js';
import { sharedToken } from '../../prefix-cache/prompts.js';
import { kSharedPrefixArbitrary, longTokensArbitrary, pagesTokensArbitrary, quotaTokensArbitrary } from '../hicache-commands.js';
import { hiCacheCommand } from './command.js';

/** The first `tokens` tokens of shared prefix `prefix` (what earlier admissions cached). */
function sharedPrompt(prefix: number, tokens: number): number[] {
  const prompt = new Array<number>(tokens);
  for (let pos = 0; pos < tokens; pos++) prompt[pos] = sharedToken(prefix, pos);
  return prompt;
}

/** A lookup of a shared prefix with no request behind it: hits that trigger write-through. */
export const hit = hiCacheCommand({
  name: 'hit',
  args: z.tuple([dataIntSchema, dataTokensSchema]),
  draws: [{ family: 'hit', weight: 2, arbitrary: (g) => fc.tuple(kSharedPrefixArbitrary, fc.oneof(pagesTokensArbitrary(g), longTokensArbitrary(g, 3))) }],
  check: () => true,
  run(m, r, [prefix, tokens], op) {
    r.cache.matchPrefix(sharedPrompt(prefix, tokens), null);
    afterPrefixCommand(m, r, op);
  },
});

/** Host eviction. */
export const evictHost = hiCacheCommand({
  name: 'evictHost',
  args: z.tuple([dataTokensSchema]),
  draws: [{ family: 'evictHost', arbitrary: (g) => fc.integer({ min: 1, max: 4 }).map((pages): [number] => [pages * g.kernelPageSize * g.dcpSize]) }],
  check: () => true,
  run(m, r, [tokens], op) {
    r.cache.evictHost(tokens);
    afterPrefixCommand(m, r, op);
  },
});

/** Load-back of the host-only part of a shared prefix, under a memory quota. */
export const loadBack = hiCacheCommand({
  name: 'loadBack',
  args: z.tuple([dataIntSchema, dataTokensSchema, dataTokensSchema]),
  draws: [{ family: 'loadBack', weight: 2, arbitrary: (g) => fc.tuple(kSharedPrefixArbitrary, longTokensArbitrary(g, 6), quotaTokensArbitrary(g)) }],
  check: () => true,
  run(m, r, [prefix, tokens, quotaTokens], op) {
    const found = r.cache.matchHost(sharedPrompt(prefix, tokens), null);
    if (found.hostHitLength > 0) r.cache.loadBack(found.lastHostNode, quotaTokens);
    afterPrefixCommand(m, r, op);
  },
});

/** A copy in flight completes — any of them, in any order. */
export const ack = hiCacheCommand({
  name: 'ack',
  args: z.tuple([dataIntSchema]),
  draws: [{ family: 'ack', weight: 2, arbitrary: () => fc.integer({ min: 0, max: 15 }).map((pick): [number] => [pick]) }],
  check: () => true,
  run(m, r, [pick], op) {
    const pending = r.cache.pendingCopies();
    const copy = pending[pick % Math.max(1, pending.length)];
    if (copy !== undefined) {
      r.cache.ack(copy.id);
      m.copySources.delete(copy.id);
    }
    afterPrefixCommand(m, r, op);
  },
});

/** Everything cleared: device pool, host pool, tree, rows; copies in flight forgotten. */
export const clearAll = hiCacheCommand({
  name: 'clearAll',
  args: z.tuple([]),
  draws: [{ family: 'clear', arbitrary: noArgs }],
  check: () => true,
  run(m, r, _args, op) {
    r.recorder.clear();
    r.cache.clearAll();
    r.reqToToken.clear();
    clearLive(m);
    m.extraLocks = [];
    m.copySources.clear();
    afterPrefixCommand(m, r, op);
  },
});

/** With `slot_used` checks on, giving back a host slot nobody holds must be refused, changing nothing. */
export const hostDoubleFree = hiCacheCommand({
  name: 'hostDoubleFree',
  args: z.tuple([dataIntSchema]),
  draws: [{ family: 'reject', arbitrary: () => fc.integer({ min: 0, max: 63 }).map((n): [number] => [n]) }],
  check: (m) => m.geometry.hostChecks && m.hostLedger.freePageCount > 0,
  run(m, r, [n], op) {
    const free: number[] = [];
    for (let slot = 0; slot < m.hostSizeExpected; slot++) if (m.hostLedger.holderOf(slot + 1) < 0) free.push(slot);
    const slot = free[n % free.length] as number;
    const before = r.hostPool.availableSize();
    let threw = false;
    try {
      r.hostPool.inner.free([slot]);
    } catch {
      threw = true;
    }
    if (!threw) throw new LedgerViolation('accepted-bad-input', `${op}: the host pool accepted a free of slot ${slot}, which is not allocated`);
    if (r.hostPool.availableSize() !== before) throw new LedgerViolation('rejected-changed-state', `${op} was refused but host availableSize went ${before} → ${r.hostPool.availableSize()}`);
    afterPrefixCommand(m, r, op);
  },
});

/**
 * A whole round trip in one command, so deep tier states are common: the shared prefix is cached
 * (a request runs and finishes), hit (write-through), every copy acknowledged, the device tier
 * evicted, and the prefix loaded back under the quota.
 */
export const roundTrip = hiCacheCommand({
  name: 'roundTrip',
  args: z.tuple([dataIntSchema, dataTokensSchema, dataTokensSchema]),
  draws: [{ family: 'roundTrip', arbitrary: (g) => fc.tuple(kSharedPrefixArbitrary, longTokensArbitrary(g, 3), quotaTokensArbitrary(g)) }],
  check: () => true,
  run(m, r, [prefix, tokens, quotaTokens], op) {
    const cache = r.cache;
    const prompt = sharedPrompt(prefix, tokens);
    const lr = admitRequest(m, r, { prefix, shared: tokens, own: 1, extraKey: null }, op);
    if (lr !== null) {
      prefillChunk(m, r, lr, lr.promptLen, op);
      finishRequests(m, r, [lr], () => null, true, op);
    }
    cache.matchPrefix(prompt, null);
    for (const copy of cache.pendingCopies()) {
      cache.ack(copy.id);
      m.copySources.delete(copy.id);
    }
    cache.evict(cache.evictableSize());
    const found = cache.matchHost(prompt, null);
    if (found.hostHitLength > 0) cache.loadBack(found.lastHostNode, quotaTokens);
    afterPrefixCommand(m, r, op);
  },
});
