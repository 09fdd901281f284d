import { ArgumentError } from '@kvfuzz/allocator-core';
import { evictionOrder, RadixTree, type RadixTreeConfig, type TreeNode } from '@kvfuzz/prefix-cache';

/**
 * The radix tree of the hierarchical cache: device eviction keeps a backed-up node (its device
 * slots go back, `value` becomes null, the host copy stays), insert revives an evicted node by
 * adopting the request's slots, and host eviction removes evicted nodes whose host copy nobody
 * needs. `backUpForEviction` is the write-back policy's hook: it may back a victim up just before
 * it is evicted.
 *
 * Invariants (on top of the radix tree's): (1) evicted ⇒ backed up; (2) an evicted node's
 * children are evicted; (3) `hostValue`, when present, is as long as the key.
 */
export class HiRadixTree extends RadixTree {
  /** Called for an unbacked eviction victim; returns whether it is backed up now (write-back). */
  backUpForEviction: (node: TreeNode) => boolean = () => false;
  /** Gives a host copy back (the cache routes it through the controller). */
  freeHostCopy: (hostValue: Int32Array) => void = () => {};

  constructor(config: RadixTreeConfig) {
    super(config);
  }

  protected override evictVictim(node: TreeNode): number {
    if (node.hostValue === null) this.backUpForEviction(node);
    if (node.hostValue !== null) return this.evictBackedUp(node);
    // Write-back can leave evicted, backed-up children under a node it then fails to back up: their
    // host copies cannot outlive the path to them, so they go first.
    for (const child of [...node.children.values()]) this.dropEvictedSubtree(child);
    return super.evictVictim(node);
  }

  /** Removes an evicted subtree (children first), giving its host copies back. */
  private dropEvictedSubtree(node: TreeNode): void {
    for (const child of [...node.children.values()]) this.dropEvictedSubtree(child);
    if (node.hostValue !== null) this.freeHostCopy(node.hostValue);
    node.hostValue = null;
    this.deleteLeaf(node);
  }

  /** Device slots back, node kept with its host copy. */
  protected evictBackedUp(node: TreeNode): number {
    const value = node.value as Int32Array;
    this.allocator.free(value);
    node.value = null;
    this.evictableTokens -= value.length;
    return value.length;
  }

  protected override reviveEvicted(node: TreeNode, slots: Int32Array): boolean {
    this.adopt(node, slots);
    return false;
  }

  /** An evicted node takes device slots again (revived by insert, or loaded back). */
  adopt(node: TreeNode, slots: Int32Array): void {
    node.value = slots;
    if (node.lockRef > 0) this.protectedTokens += slots.length;
    else this.evictableTokens += slots.length;
  }

  /**
   * Host eviction: removes evicted, unlocked, unreferenced nodes without children, in policy
   * order, giving their host slots to `freeHost`, until `numTokens` host tokens are gone.
   *
   * @returns host tokens freed.
   * @throws ArgumentError when `numTokens` is not a non-negative integer.
   */
  evictHost(numTokens: number, freeHost: (hostValue: Int32Array) => void): number {
    if (!Number.isInteger(numTokens) || numTokens < 0) throw new ArgumentError(`evictHost numTokens ${String(numTokens)} is not a non-negative integer`);
    const order = evictionOrder(this.evictionPolicy);
    const candidates = [...this.nodes()].filter((n) => this.isHostEvictable(n)).sort(order);
    let freed = 0;
    // Bounded: each pass removes one node; a parent joins at most once (when its last child goes).
    while (freed < numTokens && candidates.length > 0) {
      const node = candidates.shift() as TreeNode;
      const parent = node.parent as TreeNode;
      freeHost(node.hostValue as Int32Array);
      freed += (node.hostValue as Int32Array).length;
      node.hostValue = null;
      this.deleteLeaf(node);
      if (parent !== this.root && this.isHostEvictable(parent)) {
        candidates.push(parent);
        candidates.sort(order);
      }
    }
    return freed;
  }

  /**
   * Walks on from `node` through evicted, backed-up children along `tokens[pos, end)`, splitting
   * the child a match ends inside (as the engine's match does), and returns where the host part
   * ends. Whole tree pages only.
   */
  matchEvicted(node: TreeNode, tokens: ArrayLike<number>, pos: number, end: number, extraKey: string | null): { readonly node: TreeNode; readonly pos: number } {
    let at = node;
    let p = pos;
    // Bounded by the key: each step consumes at least one page.
    while (p < end) {
      const child = this.childAt(at, extraKey, tokens, p);
      if (child === undefined || child.value !== null || child.hostValue === null) break;
      const matched = this.matchLength(child.key, tokens, p, end);
      const target = matched < child.key.length ? this.splitNode(child, matched) : child;
      p += matched;
      at = target;
      if (target !== child) break;
    }
    return { node: at, pos: p };
  }

  /** An evicted node host eviction may remove: no device copy, unlocked, unreferenced, no children. */
  protected isHostEvictable(node: TreeNode): boolean {
    return node.value === null && node.hostValue !== null && node.lockRef === 0 && node.hostRefCounter === 0 && node.children.size === 0;
  }
}
