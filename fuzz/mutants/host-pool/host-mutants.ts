/**
 * Planted bugs in the host tier, one mechanism each: three in the hierarchical cache and its tree
 * (`hiradix_cache.py`), three in the host slot pool (`HostKVCache` in `pool_host/base.py`). Each
 * overrides one protected step.
 */
import { HiRadixCache, HiRadixTree, type CopyOp } from '@kvfuzz/hicache';
import { HostSlotPool } from '@kvfuzz/host-pool';
import { childKeyOf, type RadixTree, type TreeNode } from '@kvfuzz/prefix-cache';

/** Insert counts revived nodes in the prefix length, so the caller frees slots the tree just adopted. */
class TreeCountsRevived extends HiRadixTree {
  protected override reviveEvicted(node: TreeNode, slots: Int32Array): boolean {
    super.reviveEvicted(node, slots);
    return true;
  }
}
export class InsertCountsRevived extends HiRadixCache {
  protected override createTree(config: ConstructorParameters<typeof RadixTree>[0]): RadixTree {
    return new TreeCountsRevived(config);
  }
}

/** Write-through without the lock: the node's device slots can be evicted while the copy reads them. */
export class WriteThroughUnlocked extends HiRadixCache {
  protected override lockForWrite(node: TreeNode, op: CopyOp): void {
    this.copies.set(op.id, { node, locked: false });
  }
}

/** Host eviction removes a node that still has backed-up children: an orphaned host subtree. */
class TreeEvictsHostParents extends HiRadixTree {
  protected override isHostEvictable(node: TreeNode): boolean {
    // Children no longer matter; an already orphaned node is skipped (it is unreachable anyway).
    return node.parent !== null && node.value === null && node.hostValue !== null && node.lockRef === 0;
  }

  protected override deleteLeaf(node: TreeNode): void {
    const parent = node.parent as TreeNode;
    // The plain removal minus its "no children" assertion.
    parent.children.delete(childKeyOf(node.extraKey, node.key, 0, this.pageSize));
    if (node.value !== null) this.evictableTokens -= node.key.length;
    node.parent = null;
    this.nodeCountValue -= 1;
  }
}
export class EvictHostOrphans extends HiRadixCache {
  protected override createTree(config: ConstructorParameters<typeof RadixTree>[0]): RadixTree {
    return new TreeEvictsHostParents(config);
  }
}

/** The host pool without its `slot_used` checks on free (double free) and alloc (double alloc). */
export class HostPoolUnchecked extends HostSlotPool {
  // The slot_used marks are still written, as the engine's are; only the checks are gone.
  protected override markFreed(indices: ArrayLike<number>): void {
    for (let i = 0; i < indices.length; i++) this.slotUsed?.unset(indices[i] as number);
  }

  protected override markHandOut(start: number, n: number): void {
    for (let i = start; i < start + n; i++) this.slotUsed?.set(this.listEntry(i));
  }
}

/** First-fit instead of the contiguous-run preference of `test_mem_pool_host.py`'s contiguous-run test. */
export class HostPoolFirstFit extends HostSlotPool {
  protected override findRunStart(): number {
    return 0;
  }
}

/** The host size without the one extra page `HostKVCache` always adds. */
export class HostPoolNoExtraPage extends HostSlotPool {
  protected override pageCountFor(sizeTokens: number, pageSize: number): number {
    return Math.floor(sizeTokens / pageSize);
  }
}
