import { LedgerViolation } from '../../ledger/ledger-violation.js';
import { finishRequests } from '../prefix-cache/commands/lifecycle.js';
import { verifyPrefixQuiet } from '../prefix-cache/prefix-model-io.js';
import type { HiCacheModel, HiCacheReal } from './hicache-state.js';

/**
 * The end of every HiCache run: every copy in flight completes, the extra locks go, every request
 * finishes, the device tier is evicted (backed-up nodes stay as host copies) and then the host
 * tier. Both pools are then full, both ledgers clean, the tree empty with only the root's lock.
 */
export function drainHiCache(m: HiCacheModel, r: HiCacheReal): void {
  const op = 'drain';
  const cache = r.cache;
  verifyPrefixQuiet(m, r, op, true);
  for (const copy of cache.pendingCopies()) {
    cache.ack(copy.id);
    m.copySources.delete(copy.id);
  }
  for (const node of m.extraLocks) cache.tree.decLockRef(node);
  m.extraLocks = [];
  finishRequests(m, r, [...m.live], () => null, true, op);
  cache.evict(cache.totalSize());
  cache.evictHost(m.hostLedger.heldPageCount);
  verifyPrefixQuiet(m, r, op, true);
  m.ledger.checkDrained();
  m.hostLedger.checkDrained();
  if (cache.tree.nodeCount() !== 0 || cache.totalSize() !== 0 || cache.protectedSize() !== 0) {
    throw new LedgerViolation('tree-not-empty', `after the drain the tree has ${cache.tree.nodeCount()} nodes, total ${cache.totalSize()}, protected ${cache.protectedSize()}`);
  }
  if (cache.tree.root.lockRef !== 1) throw new LedgerViolation('locks', `after the drain the root holds ${cache.tree.root.lockRef} locks, not 1`);
  if (r.allocator.availableSize() !== m.ledger.numPages * m.pageSize) throw new LedgerViolation('leak', `after the drain the device pool has ${r.allocator.availableSize()} of ${m.ledger.numPages * m.pageSize} slots free`);
  if (r.hostPool.availableSize() !== m.hostSizeExpected) throw new LedgerViolation('host-leak', `after the drain the host pool has ${r.hostPool.availableSize()} of ${m.hostSizeExpected} slots free`);
}
