/**
 * Planted bugs in the host tier (semantics §11 items 28–33), one mechanism each: three in the
 * hierarchical cache and its tree, three in the host slot pool. Each overrides one protected step.
 */
import { HiRadixCache, HiRadixTree, HostSlotPool, type CopyOp } from '@kvfuzz/host-pool';
import { childKeyOf, type RadixTree, type TreeNode } from '@kvfuzz/prefix-cache';

/** §11.28: insert counts revived nodes in the prefix length, so the caller frees slots the tree just adopted. */
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

/** §11.29: write-through without the lock: the node's device slots can be evicted while the copy reads them. */
export class WriteThroughUnlocked extends HiRadixCache {
  protected override lockForWrite(node: TreeNode, op: CopyOp): void {
    this.copies.set(op.id, { node, locked: false });
  }
}

/** §11.30: host eviction removes a node that still has backed-up children: an orphaned host subtree. */
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

/** §11.31: the host pool without its `slot_used` checks on free and alloc. */
export class HostPoolUnchecked extends HostSlotPool {
  // The slot_used marks are still written, as the engine's are; only the checks are gone.
  protected override markFreed(indices: ArrayLike<number>): void {
    for (let i = 0; i < indices.length; i++) this.slotUsed?.unset(indices[i] as number);
  }

  protected override markHandOut(start: number, n: number): void {
    for (let i = start; i < start + n; i++) this.slotUsed?.set(this.listEntry(i));
  }
}

/** §11.32: first-fit instead of the contiguous-run preference. */
export class HostPoolFirstFit extends HostSlotPool {
  protected override findRunStart(): number {
    return 0;
  }
}

/** §11.33: the host size without the one extra page. */
export class HostPoolNoExtraPage extends HostSlotPool {
  protected override pageCountFor(sizeTokens: number, pageSize: number): number {
    return Math.floor(sizeTokens / pageSize);
  }
}
