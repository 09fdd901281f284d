/**
 * The radix tree's whole-structure check, run at quiet points (after a model command, at drain).
 *
 * @packageDocumentation
 */
import { InvariantError } from '@kvfuzz/allocator-core';
import { childKeyOf } from './child-key.js';
import type { TreeNode } from './tree-node.js';

/**
 * What the check reads of a radix tree; `RadixTree` has all of it. A shape of its own, so that
 * this file and `radix-tree.ts`, which calls the check, do not import each other.
 *
 * @internal
 */
export interface CheckedRadixTree {
  readonly pageSize: number;
  readonly root: TreeNode;
  nodeCount(): number;
  evictableSize(): number;
  protectedSize(): number;
  totalSize(): number;
}

/**
 * Throws {@link InvariantError} when `condition` is false. For the tree's own invariants only;
 * caller mistakes throw the typed errors of `errors.ts`.
 *
 * @internal
 */
export function assertTree(condition: boolean, message: string): asserts condition {
  if (!condition) throw new InvariantError(`Invariant broken: ${message}`);
}

/**
 * Checks invariants 1–7 of `RadixTree` by walking the whole tree; O(tokens held).
 *
 * @param tree - the tree to check.
 * @throws InvariantError naming the first broken invariant and the node it broke at.
 * @internal
 */
export function verifyRadixTree(tree: CheckedRadixTree): void {
  const ps = tree.pageSize;
  const root = tree.root;
  assertTree(root.parent === null, `(1) root ${root.id} has parent ${root.parent?.id ?? 'null'}`);
  assertTree(root.key.length === 0, `(1) root key has ${root.key.length} tokens, not 0`);
  assertTree(root.value !== null && root.value.length === 0, `(1) root value is ${root.value === null ? 'null' : `${root.value.length} slots`}, not empty`);
  assertTree(root.lockRef === 1, `(1) root lockRef is ${root.lockRef}, not 1`);

  const seenNodes = new Set<TreeNode>([root]);
  const seenIds = new Set<number>([root.id]);
  // Page → id of the node whose value holds it, for invariant 7.
  const pageOwner = new Map<number, number>();
  let valueTokens = 0;
  let lockedTokens = 0;
  let nodeCount = 0;
  const stack: TreeNode[] = [root];
  // Bounded: every node is pushed once (the seen set refuses a second visit).
  while (stack.length > 0) {
    const parent = stack.pop() as TreeNode;
    for (const [fileKey, node] of parent.children) {
      assertTree(!seenNodes.has(node), `(2) node ${node.id} is reachable twice`);
      seenNodes.add(node);
      assertTree(!seenIds.has(node.id), `(2) node id ${node.id} is used twice`);
      seenIds.add(node.id);
      nodeCount += 1;
      checkLinks(node, parent, fileKey, root, ps);
      checkLengths(node, ps);
      checkLocks(node, parent, root);
      if (parent !== root) {
        assertTree(node.priority <= parent.priority, `(6) node ${node.id} has priority ${node.priority} above its parent ${parent.id}'s ${parent.priority}`);
        assertTree(
          node.lastAccessTime <= parent.lastAccessTime,
          `(6) node ${node.id} was accessed at ${node.lastAccessTime}, after its parent ${parent.id} (at ${parent.lastAccessTime})`,
        );
      }
      if (node.value !== null) {
        valueTokens += node.value.length;
        checkPages(node, ps, pageOwner);
      }
      if (node.lockRef > 0) lockedTokens += node.key.length;
      stack.push(node);
    }
  }

  assertTree(nodeCount === tree.nodeCount(), `(2) ${nodeCount} nodes reachable, the tree counts ${tree.nodeCount()}`);
  const evictable = tree.evictableSize();
  const locked = tree.protectedSize();
  assertTree(evictable >= 0, `(5) evictable size ${evictable} is negative`);
  assertTree(locked === lockedTokens, `(5) protected size ${locked} ≠ ${lockedTokens} tokens of locked nodes`);
  assertTree(evictable + locked === valueTokens, `(5) evictable ${evictable} + protected ${locked} ≠ ${valueTokens} slots held by nodes`);
  assertTree(tree.totalSize() === valueTokens, `(5) total size ${tree.totalSize()} ≠ ${valueTokens} slots held by nodes`);
}

function checkLinks(node: TreeNode, parent: TreeNode, fileKey: string, root: TreeNode, ps: number): void {
  assertTree(node.parent === parent, `(2) node ${node.id} is a child of ${parent.id} but points to parent ${node.parent?.id ?? 'null'}`);
  assertTree(node !== root, `(2) the root is a child of node ${parent.id}`);
  const expectKey = childKeyOf(node.extraKey, node.key, 0, ps);
  // These messages print whole keys, a page of tokens each: they are built only when the check fails.
  if (fileKey !== expectKey) assertTree(false, `(2) node ${node.id} is filed under ${JSON.stringify(fileKey)}, its first page gives ${JSON.stringify(expectKey)}`);
  if (parent !== root && node.extraKey !== parent.extraKey) {
    assertTree(false, `(2) node ${node.id} has extraKey ${JSON.stringify(node.extraKey)} under parent ${parent.id} with ${JSON.stringify(parent.extraKey)}`);
  }
}

function checkLengths(node: TreeNode, ps: number): void {
  const tokenCount = node.key.length;
  assertTree(tokenCount > 0 && tokenCount % ps === 0, `(3) node ${node.id} key has ${tokenCount} tokens, not a positive multiple of the page size ${ps}`);
  assertTree(node.value === null || node.value.length === tokenCount, `(3) node ${node.id} has ${tokenCount} tokens but ${node.value?.length ?? 0} slots`);
}

function checkLocks(node: TreeNode, parent: TreeNode, root: TreeNode): void {
  assertTree(Number.isInteger(node.lockRef) && node.lockRef >= 0, `(4) node ${node.id} has lockRef ${node.lockRef}`);
  if (parent !== root) {
    assertTree(parent.lockRef >= node.lockRef, `(4) node ${node.id} has lockRef ${node.lockRef} above its parent ${parent.id}'s ${parent.lockRef}`);
  }
}

function checkPages(node: TreeNode, ps: number, pageOwner: Map<number, number>): void {
  const value = node.value as Int32Array;
  for (let blockStart = 0; blockStart < value.length; blockStart += ps) {
    const page = Math.floor((value[blockStart] as number) / ps);
    for (let i = blockStart; i < blockStart + ps; i++) {
      const slot = value[i] as number;
      // Checked once per slot, so the message is built only on failure.
      if (slot !== page * ps + (i - blockStart)) {
        assertTree(false, `(7) node ${node.id} position ${i} holds slot ${slot}, expected ${page * ps + (i - blockStart)} (offset ${i - blockStart} of page ${page})`);
      }
    }
    const owner = pageOwner.get(page);
    assertTree(owner === undefined, `(7) page ${page} is held by node ${owner ?? -1} and node ${node.id}`);
    pageOwner.set(page, node.id);
  }
}
