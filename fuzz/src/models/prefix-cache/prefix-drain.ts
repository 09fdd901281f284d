import { LedgerViolation } from '../../ledger/ledger-violation.js';
import { finishRequests } from './commands/lifecycle.js';
import type { PrefixModel, PrefixReal } from './prefix-model-state.js';
import { verifyPrefixQuiet } from './prefix-model-io.js';

/**
 * The end of every lifecycle run: release the extra locks, finish every request, evict the whole
 * tree. Then the pool is full, every page was given back exactly once per allocation, the tree is
 * empty with only the root's lock left, and every row is free.
 */
export function drainPrefix(m: PrefixModel, r: PrefixReal): void {
  const op = 'drain';
  verifyPrefixQuiet(m, r, op, true);
  for (const node of m.extraLocks) r.cache.tree.decLockRef(node);
  m.extraLocks = [];
  finishRequests(m, r, [...m.live], () => null, true, op);
  r.cache.evict(r.cache.totalSize());
  verifyPrefixQuiet(m, r, op, true);
  m.ledger.checkDrained();
  const sizes = { total: r.cache.totalSize(), evictable: r.cache.evictableSize(), protected: r.cache.protectedSize() };
  if (sizes.total !== 0 || sizes.evictable !== 0 || sizes.protected !== 0) {
    throw new LedgerViolation('tree-not-empty', `after the drain the tree reports total ${sizes.total}, evictable ${sizes.evictable}, protected ${sizes.protected}`);
  }
  if (r.cache.tree.root.lockRef !== 1) throw new LedgerViolation('locks', `after the drain the root holds ${r.cache.tree.root.lockRef} locks, not 1`);
  const full = m.ledger.numPages * m.pageSize;
  if (r.allocator.availableSize() !== full) throw new LedgerViolation('leak', `after the drain availableSize() = ${r.allocator.availableSize()}, not ${full}`);
}
