import fc from 'fast-check';
import { z } from 'zod';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { dataIntSchema, dataTokensSchema } from '../../command-bounds.js';
import { prefixPageSizeOf, tokensArbitrary } from '../geometry.js';
import { kPickArbitrary } from '../prefix-commands.js';
import { inDecode, liveAt } from '../live-set.js';
import { afterPrefixCommand } from '../prefix-model-io.js';
import { prefixCommand } from './command.js';

/** Sliding-window eviction for a decoding request: its SWA floor may only move up, page by page. */
export const swa = prefixCommand({
  name: 'swa',
  args: z.tuple([dataIntSchema, dataTokensSchema]),
  draws: [{ family: 'swa', arbitrary: (g) => fc.tuple(kPickArbitrary, fc.integer({ min: 1, max: 3 * prefixPageSizeOf(g) })) }],
  check: (m) => m.live.some(inDecode),
  run(m, r, [pick, windowTokens], op) {
    const lr = liveAt(m, pick, inDecode);
    if (lr !== null) {
      const before = lr.req.kv.swaEvictedSeqlen;
      r.cache.advanceSwaWindow(lr.req, windowTokens);
      if (lr.req.kv.swaEvictedSeqlen < before) throw new LedgerViolation('swa-floor', `${op} moved the SWA floor down, ${before} → ${lr.req.kv.swaEvictedSeqlen}`);
    }
    afterPrefixCommand(m, r, op);
  },
});

/** Evicts unlocked cached tokens (what a scheduler does under memory pressure). */
export const evict = prefixCommand({
  name: 'evict',
  args: z.tuple([dataTokensSchema]),
  draws: [{ family: 'evict', arbitrary: (g) => tokensArbitrary(g, 4).map((n): [number] => [n]) }],
  check: () => true,
  run(m, r, [tokens], op) {
    r.cache.evict(tokens);
    afterPrefixCommand(m, r, op);
  },
});

/** Takes an extra lock on a live request's matched node (eviction must keep it). */
export const lock = prefixCommand({
  name: 'lock',
  args: z.tuple([dataIntSchema]),
  draws: [{ family: 'lock', arbitrary: () => kPickArbitrary.map((p): [number] => [p]) }],
  check: (m) => m.live.some((lr) => lr.req.lastNode !== null && lr.req.lastNode !== undefined),
  run(m, r, [pick], op) {
    const lr = liveAt(m, pick, (x) => x.req.lastNode !== null);
    const node = lr?.req.lastNode ?? null;
    if (node !== null && node !== r.cache.tree.root) {
      r.cache.lock(node);
      m.extraLocks.push(node);
    }
    afterPrefixCommand(m, r, op);
  },
});

/** Releases one of the extra locks. */
export const unlock = prefixCommand({
  name: 'unlock',
  args: z.tuple([dataIntSchema]),
  draws: [{ family: 'lock', arbitrary: () => kPickArbitrary.map((p): [number] => [p]) }],
  check: (m) => m.extraLocks.length > 0,
  run(m, r, [pick], op) {
    const i = pick % m.extraLocks.length;
    const node = m.extraLocks[i];
    if (node !== undefined) {
      r.cache.tree.decLockRef(node);
      m.extraLocks.splice(i, 1);
    }
    afterPrefixCommand(m, r, op);
  },
});
