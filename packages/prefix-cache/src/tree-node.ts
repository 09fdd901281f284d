/**
 * One node of the radix tree: an edge of token ids and the KV slots that hold them.
 *
 * @packageDocumentation
 */

/**
 * A radix-tree node (the engine's `TreeNode`). The tree owns every node; callers hold nodes only
 * as lock handles (`incLockRef` / `decLockRef`) and read their fields.
 *
 * Invariants (checked by `RadixTree.verifyInvariants`):
 * 1. `key.length` is a positive multiple of the tree page size (the root's is 0);
 * 2. `value` is `null` (evicted) or holds exactly `key.length` slots;
 * 3. `lockRef >= 0`, and a parent's `lockRef` is at least each child's;
 * 4. `parent.children.get(childKey(this)) === this` while the node is in a tree; a node removed
 *    from its tree has `parent === null` and is not the root.
 */
export class TreeNode {
  /** Creation order within its tree (the root is the first); breaks eviction ties. */
  readonly id: number;
  /** The node above; `null` for the root and for a node that was removed from its tree. */
  parent: TreeNode | null;
  // Keyed by the child's namespace and first page of tokens (see `childKeyOf`), so a lookup
  // needs one page of the query, never the whole key.
  /** Children by child key: the extra-key namespace and the first page of the child's tokens. */
  readonly children: Map<string, TreeNode> = new Map();
  /** Token ids of this edge (tokens). */
  key: Int32Array;
  /** Namespace of every token on this node's path; `null` for no namespace. */
  readonly extraKey: string | null;
  /** KV slots of this edge, one per token of `key`; `null` when evicted (HiCache keeps such nodes). */
  value: Int32Array | null;
  /** Requests (and descendants' locks) that pin this node; > 0 keeps its tokens protected. */
  lockRef = 0;
  /** Logical-clock stamp of the last match or insert that visited this node. */
  lastAccessTime = 0;
  /** Logical-clock stamp of the call that created this node (a split creates a node too). */
  creationTime = 0;
  /** Matches that went through this node (the `lfu` key). */
  hitCount = 0;
  /** Largest priority inserted through this node (the `priority` policy key). */
  priority = 0;
  /** Host (L2) slots holding a copy of this edge; `null` when not backed up. */
  hostValue: Int32Array | null = null;
  /** Host-side pins (prefetch, load back); the HiCache model keeps it ≥ 0. */
  hostRefCounter = 0;

  /**
   * @param id - the tree's next node id.
   * @param parent - the node above, or `null` for a root.
   * @param key - token ids of the edge (tokens); the node keeps the array, so pass a copy.
   * @param extraKey - namespace of the edge.
   * @param value - KV slots of the edge (slots), or `null`; the node keeps the array.
   */
  constructor(id: number, parent: TreeNode | null, key: Int32Array, extraKey: string | null, value: Int32Array | null) {
    this.id = id;
    this.parent = parent;
    this.key = key;
    this.extraKey = extraKey;
    this.value = value;
  }

  /** Whether the device copy is gone (`value === null`). */
  get evicted(): boolean {
    return this.value === null;
  }

  /** Whether a host copy exists (`hostValue !== null`). */
  get backuped(): boolean {
    return this.hostValue !== null;
  }
}
