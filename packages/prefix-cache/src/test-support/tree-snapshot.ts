/**
 * A deep, comparable picture of a radix tree, for "threw, and nothing changed" assertions
 * (STYLE rule 18).
 */
import type { RadixTree } from '../radix-tree.js';

/** One node as plain data. */
export interface NodeSnapshot {
  readonly id: number;
  readonly parentId: number | null;
  readonly key: number[];
  readonly extraKey: string | null;
  readonly value: number[] | null;
  readonly lockRef: number;
  readonly lastAccessTime: number;
  readonly creationTime: number;
  readonly hitCount: number;
  readonly priority: number;
}

/** Sizes, clock and every node (root included) in `nodes()` order. */
export interface TreeSnapshot {
  readonly evictable: number;
  readonly protected: number;
  readonly total: number;
  readonly logicalTime: number;
  readonly nodes: NodeSnapshot[];
}

/** Takes a {@link TreeSnapshot} of `tree`. */
export function snapshotTree(tree: RadixTree): TreeSnapshot {
  const nodes: NodeSnapshot[] = [];
  for (const node of [tree.root, ...tree.nodes()]) {
    nodes.push({
      id: node.id,
      parentId: node.parent?.id ?? null,
      key: Array.from(node.key),
      extraKey: node.extraKey,
      value: node.value === null ? null : Array.from(node.value),
      lockRef: node.lockRef,
      lastAccessTime: node.lastAccessTime,
      creationTime: node.creationTime,
      hitCount: node.hitCount,
      priority: node.priority,
    });
  }
  return { evictable: tree.evictableSize(), protected: tree.protectedSize(), total: tree.totalSize(), logicalTime: tree.logicalTime, nodes };
}

