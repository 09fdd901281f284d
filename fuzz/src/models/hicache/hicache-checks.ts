import type { TreeNode } from '@kvfuzz/prefix-cache';
import { LedgerViolation } from '../../ledger/ledger-violation.js';
import type { OpLabel } from '../../ledger/op-label.js';
import type { HiCacheModel, HiCacheReal } from './hicache-state.js';

/**
 * The HiCache checks, the engine's HiCache invariants (`hiradix_cache.py`) among them. After every
 * command, O(what it touched): the host pool's size and exact availability, and each write-through
 * copy in flight still reads the device pages it started from. With `wholeTree` (a quiet point)
 * also every node: evicted ⇒ backed up; an evicted node's children are evicted; every host slot
 * held belongs to exactly one node's host copy; a node with a write-through copy in flight is locked.
 */
export function checkHiCache(m: HiCacheModel, r: HiCacheReal, op: OpLabel, wholeTree: boolean): void {
  const host = r.hostPool;
  if (host.size !== m.hostSizeExpected) throw new LedgerViolation('host-size', `after ${op}: the host pool has ${host.size} slots; the sizing rule (one extra page) gives ${m.hostSizeExpected}`);
  if (host.availableSize() !== m.hostLedger.freePageCount) {
    throw new LedgerViolation('host-available-size', `after ${op}: host availableSize() = ${host.availableSize()}, the host ledger has ${m.hostLedger.freePageCount} free slots`);
  }
  for (const copy of r.cache.pendingCopies()) {
    const source = copy.kind === 'write' ? m.copySources.get(copy.id) : undefined;
    source?.pages.forEach((page, i) => {
      if (m.ledger.holderOf(page) < 0 || m.ledger.epochOf(page) !== source.epochs[i]) {
        throw new LedgerViolation('copy-source-freed', `after ${op}: device page ${page}, which write copy ${copy.id} (node ${copy.nodeId}) reads, was freed before the copy completed`);
      }
    });
  }
  if (wholeTree) checkHiCacheTree(m, r, op);
}

function checkHiCacheTree(m: HiCacheModel, r: HiCacheReal, op: OpLabel): void {
  const cache = r.cache;
  const byId = new Map<number, TreeNode>();
  const hostOwner = new Map<number, number>();
  for (const node of cache.tree.nodes()) {
    byId.set(node.id, node);
    if (node.value === null && node.hostValue === null) throw new LedgerViolation('evicted-without-backup', `after ${op}: node ${node.id} is evicted and has no host copy`);
    if (node.value === null) {
      for (const child of node.children.values()) {
        if (child.value !== null) throw new LedgerViolation('evicted-closure', `after ${op}: node ${node.id} is evicted but its child ${child.id} is on the device`);
      }
    }
    if (node.hostValue === null) continue;
    if (node.hostValue.length !== node.key.length) throw new LedgerViolation('host-copy-length', `after ${op}: node ${node.id} has ${node.key.length} tokens and ${node.hostValue.length} host slots`);
    for (const slot of node.hostValue) {
      const other = hostOwner.get(slot);
      if (other !== undefined) throw new LedgerViolation('host-ownership', `after ${op}: host slot ${slot} belongs to nodes ${other} and ${node.id}`);
      hostOwner.set(slot, node.id);
      if (m.hostLedger.holderOf(slot + 1) < 0) throw new LedgerViolation('host-use-after-free', `after ${op}: node ${node.id}'s host copy uses slot ${slot}, which the host pool has free`);
    }
  }
  if (hostOwner.size !== m.hostLedger.heldPageCount) {
    throw new LedgerViolation('host-leak', `after ${op}: ${m.hostLedger.heldPageCount} host slots are held but nodes own ${hostOwner.size}`);
  }
  for (const copy of cache.pendingCopies()) {
    if (copy.kind !== 'write') continue;
    const node = byId.get(copy.nodeId);
    if (node === undefined || node.lockRef === 0) throw new LedgerViolation('write-unlocked', `after ${op}: node ${copy.nodeId} has a write-through copy in flight but is ${node === undefined ? 'gone' : 'unlocked'}`);
  }
}
