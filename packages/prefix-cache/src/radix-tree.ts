/**
 * The radix prefix tree of `@kvfuzz/prefix-cache` (the engine's `RadixCache` tree core, latest
 * behaviour): matching with splits, insert with in-tree duplicate frees, lock references,
 * evictable/protected accounting and policy-ordered eviction into a {@link PageAllocator}.
 *
 * @packageDocumentation
 */
import { ArgumentError, floorToPage, type FreeSegment, type PageAllocator } from '@kvfuzz/allocator-core';
import { BinaryHeap } from './binary-heap.js';
import { childKeyOf } from './child-key.js';
import { CacheConfigError, LockRefError, RequestStateError } from './errors.js';
import { evictionOrder, type EvictionOrder, type EvictionPolicy } from './eviction-policy.js';
import type { RadixKey } from './radix-key.js';
import { resolveRadixTreeConfig, type RadixTreeConfig } from './radix-tree-config.js';
import { TreeNode } from './tree-node.js';
import { assertTree, verifyRadixTree } from './verify-radix-tree.js';

export type { RadixTreeConfig } from './radix-tree-config.js';

/** What {@link RadixTree.matchPrefix} returns. */
export interface MatchPrefixResult {
  /** The slots of the matched prefix, position by position (a tree-page multiple of slots). */
  readonly indices: Int32Array;
  /** The deepest matched node; the root when nothing matched. Lock it to keep the prefix. */
  readonly lastNode: TreeNode;
}

/** Options of {@link RadixTree.insert}. */
export interface RadixTreeInsertOptions {
  /**
   * The request's `cache_protected_len` (tokens, a tree-page multiple). When given, the tree
   * frees the new value's duplicates beyond it itself, in one `freeSegments` call (the newer
   * trees' behaviour); when absent, nothing is freed and the caller frees
   * `[cache_protected_len, prefixLen)` (the classic path).
   */
  readonly prevPrefixLen?: number | undefined;
  /**
   * Priority of the inserted sequence; nodes on the path keep the largest they were given.
   * @defaultValue 0
   */
  readonly priority?: number | undefined;
}

/** `source[start, end)` as a new Int32Array (the caller may overwrite `source` once a call returns). */
function copyRange(source: ArrayLike<number>, start: number, end: number): Int32Array {
  const out = new Int32Array(end - start);
  for (let i = start; i < end; i++) out[i - start] = source[i] as number;
  return out;
}

// The smallest and largest int32: tokens and slots are stored in Int32Arrays and must survive exactly.
const kInt32Min = -(2 ** 31);
const kInt32Max = 2 ** 31 - 1;

/**
 * A radix tree over token pages whose nodes hold KV slots. The tree page size is the allocator's
 * page size; keys are compared page by page, so every match and insert length is a page multiple.
 * Time is a logical clock: each `matchPrefix` and `insert` call advances it by one and stamps the
 * nodes it visits, so eviction orders replay exactly.
 *
 * Invariants (checked by {@link RadixTree.verifyInvariants}):
 * 1. the root has an empty key, an empty value, no parent and `lockRef === 1` forever;
 * 2. every node is reachable once; `parent`/`children` links agree, each child is filed under its
 *    namespace and first page, and a node's namespace is its parent's (below the root);
 * 3. every key is a positive page multiple; a value is `null` (evicted) or as long as its key;
 * 4. `lockRef >= 0`, and below the root a parent's `lockRef` is at least each child's;
 * 5. `evictable + protected == Σ len(value)` over non-evicted nodes, and
 *    `protected == Σ len(key)` over nodes with `lockRef > 0`;
 * 6. priority and last access time never grow from a parent to its child;
 * 7. every value keeps the row page structure (`value[i] % pageSize == i % pageSize`, one page per
 *    page block), and no page is held by two nodes.
 *
 * Steps that a planted mutant replaces (`splitNode`, `pageAlignedLength`, `matchLength`,
 * `incLockRefStep`, `decLockRefStep`, `checkUnlockable`) are protected methods.
 */
export class RadixTree {
  /** Tree page size (tokens): the allocator's page size. */
  readonly pageSize: number;
  /** The allocator evicted and duplicate slots go back to. */
  readonly allocator: PageAllocator;
  /** The eviction policy `evict` orders leaves by. */
  readonly evictionPolicy: EvictionPolicy;
  /** Whether the tree is disabled (matches nothing, inserts nothing). */
  readonly disabled: boolean;

  private readonly evictionCompare: EvictionOrder;
  // The root is replaced by reset(), so that handles to nodes of the old tree fail the ownership
  // check of incLockRef/decLockRef instead of silently pinning nothing.
  private rootNode: TreeNode;
  // Node ids and the clock keep counting across reset(), so no two nodes of one tree's life share
  // an id and a stale handle can never be mistaken for a new node.
  private nextNodeId = 0;
  private clock = 0;
  // Nodes below the root; bounds every walk towards the root.
  protected nodeCountValue = 0;
  /** Tokens of unlocked, non-evicted nodes (what `evict` can reach). */
  protected evictableTokens = 0;
  /** Tokens of nodes with `lockRef > 0`. */
  protected protectedTokens = 0;

  /**
   * @param config - the allocator and options; see {@link RadixTreeConfig}.
   * @throws CacheConfigError naming the bad value (an unknown eviction policy, a bad allocator page size).
   */
  constructor(config: RadixTreeConfig) {
    const resolved = resolveRadixTreeConfig(config);
    this.pageSize = resolved.pageSize;
    this.allocator = resolved.allocator;
    this.evictionPolicy = resolved.evictionPolicy;
    this.disabled = resolved.disabled;
    this.evictionCompare = evictionOrder(this.evictionPolicy);
    this.rootNode = this.newRoot();
  }

  /** The root: empty key, empty value, `lockRef` 1 forever. A new object after {@link RadixTree.reset}. */
  get root(): TreeNode {
    return this.rootNode;
  }

  /** The logical clock: how many `matchPrefix` and `insert` calls this tree has seen. */
  get logicalTime(): number {
    return this.clock;
  }

  /** Nodes below the root. */
  nodeCount(): number {
    return this.nodeCountValue;
  }

  /**
   * The longest cached prefix of `key`, in whole tree pages. The key is first cut to a page
   * multiple; the walk stamps every visited node, counts a hit on every matched node, and splits
   * the node the match ends inside (a size-neutral change), so `lastNode` covers the match exactly.
   * A disabled tree or an empty key matches nothing.
   *
   * @param key - token ids and namespace to look up.
   * @returns the matched slots (a page multiple, a copy) and the deepest matched node (root when none).
   * @throws CacheConfigError when `key.extraKey` is neither a string nor null/undefined.
   */
  matchPrefix(key: RadixKey): MatchPrefixResult {
    const extraKey = this.extraKeyOf(key);
    const tokens = key.tokens;
    this.clock += 1;
    const now = this.clock;
    const root = this.rootNode;
    const tokenEnd = this.pageAlignedLength(tokens.length);
    if (this.disabled || tokenEnd === 0) return { indices: new Int32Array(0), lastNode: root };
    root.lastAccessTime = now;
    const parts: Int32Array[] = [];
    let node = root;
    let pos = 0;
    // Bounded by the key: each pass consumes at least one page (a child is found by its first page).
    while (pos < tokenEnd) {
      const child = this.childAt(node, extraKey, tokens, pos);
      // An evicted node (HiCache) ends the device match: its tokens have no slots to hand out.
      if (child === undefined || child.value === null) break;
      child.lastAccessTime = now;
      const matched = this.matchLength(child.key, tokens, pos, tokenEnd);
      const target = matched < child.key.length ? this.splitNode(child, matched) : child;
      target.hitCount += 1;
      parts.push(target.value as Int32Array);
      pos += matched;
      node = target;
      if (target !== child) break;
    }
    const indices = new Int32Array(pos);
    let offset = 0;
    for (const part of parts) {
      indices.set(part, offset);
      offset += part.length;
    }
    return { indices, lastNode: node };
  }

  /**
   * Inserts `key → value` and returns how much of it the tree already held. The walk stamps the
   * path and raises its priority; a match ending inside a node splits it; the rest becomes a new
   * leaf holding a copy of its value slice. With `prevPrefixLen`, the new value's slots that
   * duplicate the tree beyond `prevPrefixLen` are given back in one `freeSegments` call, one
   * segment per matched node; the frees happen before the leaf is added, so a rejected free leaves
   * the tree's contents as they were (only size-neutral splits and stamps happened).
   *
   * @param key - token ids and namespace; a tree-page multiple of tokens.
   * @param value - the slots of the key's positions (slots), as long as the key.
   * @param options - `prevPrefixLen` (tokens) and `priority`; see {@link RadixTreeInsertOptions}.
   * @returns prefixLen: tokens of `key` that were already in the tree (a page multiple); 0 when disabled.
   * @throws CacheConfigError when key and value differ in length, the length is not a page multiple,
   *   a token is not an int32 or `extraKey` is neither a string nor null/undefined.
   * @throws ArgumentError when a slot is not a non-negative int32 or the priority is not a finite number.
   * @throws RequestStateError when `prevPrefixLen` is not a non-negative page multiple.
   */
  insert(key: RadixKey, value: ArrayLike<number>, options: RadixTreeInsertOptions = {}): number {
    const extraKey = this.extraKeyOf(key);
    const tokens = key.tokens;
    this.validateInsert(tokens, value, options);
    const prevPrefixLen = options.prevPrefixLen;
    const priority = options.priority ?? 0;
    this.clock += 1;
    const now = this.clock;
    if (this.disabled) return 0;
    const root = this.rootNode;
    root.lastAccessTime = now;
    const tokenEnd = tokens.length;
    const duplicates: FreeSegment[] = [];
    let node = root;
    let pos = 0;
    // Where revived (evicted, then adopted) nodes start: evicted nodes form whole subtrees, so
    // every node matched after the first revived one is revived too.
    let revivedFrom: number | null = null;
    // The key the walk missed on: the new leaf's, since the leaf starts at that page.
    let missedKey = '';
    // Bounded by the key: each pass consumes at least one page (a child is found by its first page).
    while (pos < tokenEnd) {
      const key = childKeyOf(extraKey, tokens, pos, this.pageSize);
      const child = node.children.get(key);
      if (child === undefined) {
        missedKey = key;
        break;
      }
      child.lastAccessTime = now;
      child.priority = Math.max(child.priority, priority);
      const matched = this.matchLength(child.key, tokens, pos, tokenEnd);
      const target = matched < child.key.length ? this.splitNode(child, matched) : child;
      target.priority = Math.max(target.priority, priority);
      if (target.value === null) {
        // An evicted node (HiCache) adopts the request's slots: they are the tree's now, so they
        // are neither duplicates to free nor part of the prefix the caller frees.
        const counted = this.reviveEvicted(target, copyRange(value, pos, pos + matched));
        if (!counted) revivedFrom ??= pos;
        else if (prevPrefixLen !== undefined && Math.max(pos, prevPrefixLen) < pos + matched) {
          duplicates.push({ indices: copyRange(value, Math.max(pos, prevPrefixLen), pos + matched), startPos: Math.max(pos, prevPrefixLen) });
        }
        pos += matched;
        node = target;
        continue;
      }
      // The node covers row positions [pos, pos + matched); the request's slots there beyond its
      // protected prefix duplicate the tree's. Both ends are page multiples, so segments of
      // consecutive nodes never share a page.
      if (prevPrefixLen !== undefined) {
        const slotStart = Math.max(pos, prevPrefixLen);
        const slotEnd = pos + matched;
        if (slotStart < slotEnd) duplicates.push({ indices: copyRange(value, slotStart, slotEnd), startPos: slotStart });
      }
      pos += matched;
      node = target;
    }
    const prefixLen = revivedFrom ?? pos;
    if (duplicates.length > 0) this.allocator.freeSegments(duplicates);
    if (pos < tokenEnd) {
      const leafKey = copyRange(tokens, pos, tokenEnd);
      const leafValue = copyRange(value, pos, tokenEnd);
      const leaf = new TreeNode(this.nextNodeId++, node, leafKey, extraKey, leafValue);
      leaf.lastAccessTime = now;
      leaf.creationTime = now;
      leaf.priority = priority;
      node.children.set(missedKey, leaf);
      this.nodeCountValue += 1;
      this.evictableTokens += leafKey.length;
    }
    return prefixLen;
  }

  /**
   * Pins `node` and its ancestors (not the root): each that goes from unlocked to locked moves its
   * tokens from evictable to protected.
   *
   * @param node - a node of this tree (usually a match's `lastNode`).
   * @returns the change of the evictable size (tokens, ≤ 0).
   * @throws LockRefError when `node` is not in this tree (another tree's, or already removed).
   */
  incLockRef(node: TreeNode): number {
    this.checkOwned(node, 'incLockRef');
    let delta = 0;
    for (let at = node; at !== this.rootNode; at = at.parent as TreeNode) delta += this.incLockRefStep(at);
    return delta;
  }

  /**
   * Unpins `node` and its ancestors (not the root): each that goes from locked to unlocked moves
   * its tokens back to evictable. Unlike the engine, an unlock that would take any lock count
   * below zero is refused before anything changes.
   *
   * @param node - a node of this tree previously passed to {@link RadixTree.incLockRef}.
   * @returns the change of the evictable size (tokens, ≥ 0).
   * @throws LockRefError when `node` is not in this tree, or it or an ancestor has `lockRef` 0.
   */
  decLockRef(node: TreeNode): number {
    this.checkOwned(node, 'decLockRef');
    this.checkUnlockable(node);
    let delta = 0;
    for (let at = node; at !== this.rootNode; at = at.parent as TreeNode) delta += this.decLockRefStep(at);
    return delta;
  }

  /**
   * Evicts unlocked leaves in policy order until at least `numTokens` tokens are gone or nothing
   * evictable is left. Each evicted node's slots go back with one plain `allocator.free`; a parent
   * left childless and unlocked joins the queue. May overshoot by less than one node.
   *
   * @param numTokens - tokens wanted (tokens); 0 evicts nothing.
   * @returns tokens evicted (tokens).
   * @throws ArgumentError when `numTokens` is not a non-negative integer.
   */
  evict(numTokens: number): number {
    if (!Number.isInteger(numTokens) || numTokens < 0) {
      throw new ArgumentError(`evict numTokens ${String(numTokens)} is not a non-negative integer`);
    }
    if (this.disabled || numTokens === 0) return 0;
    const heap = new BinaryHeap<TreeNode>(this.evictionCompare);
    for (const node of this.nodes()) if (this.isEvictableLeaf(node)) heap.push(node);
    let evicted = 0;
    // Bounded: every iteration removes one node, and a node enters the heap at most once.
    while (evicted < numTokens) {
      const node = heap.pop();
      if (node === undefined) break;
      const parent = node.parent as TreeNode;
      evicted += this.evictVictim(node);
      if (parent !== this.rootNode && this.isEvictableLeaf(parent)) heap.push(parent);
    }
    return evicted;
  }

  /** Tokens the tree holds unlocked (reachable by `evict`). */
  evictableSize(): number {
    return this.evictableTokens;
  }

  /** Tokens the tree holds under a lock. */
  protectedSize(): number {
    return this.protectedTokens;
  }

  /** Tokens (= slots) the tree holds: evictable plus protected. */
  totalSize(): number {
    return this.evictableTokens + this.protectedTokens;
  }

  /**
   * Starts over with an empty tree. Frees nothing: the caller clears the allocator (the engine's
   * `reset` runs with no request in flight, right before the pool is cleared).
   */
  reset(): void {
    this.rootNode = this.newRoot();
    this.nodeCountValue = 0;
    this.evictableTokens = 0;
    this.protectedTokens = 0;
  }

  /**
   * Every node except the root, parents before children. Do not change the tree while iterating.
   *
   * @returns a fresh iterator.
   */
  *nodes(): IterableIterator<TreeNode> {
    const stack: TreeNode[] = [];
    for (const child of this.rootNode.children.values()) stack.push(child);
    stack.reverse();
    while (stack.length > 0) {
      const node = stack.pop() as TreeNode;
      yield node;
      const start = stack.length;
      for (const child of node.children.values()) stack.push(child);
      // Reverse the children just pushed so they come out in map order.
      for (let i = start, j = stack.length - 1; i < j; i++, j--) [stack[i], stack[j]] = [stack[j] as TreeNode, stack[i] as TreeNode];
    }
  }

  /**
   * Whole-structure check for quiet points (after a model command, at drain); O(tokens held).
   *
   * @throws InvariantError naming the first broken invariant (see the class comment).
   */
  verifyInvariants(): void {
    verifyRadixTree(this);
  }

  // ---- steps a planted mutant overrides --------------------------------------------------------

  /** The longest page-multiple prefix of `tokenCount` tokens that a match may use (tokens). */
  protected pageAlignedLength(tokenCount: number): number {
    return floorToPage(tokenCount, this.pageSize);
  }

  /**
   * Tokens of `nodeKey` that equal `tokens[pos, tokenEnd)`, compared page by page: a page counts
   * only when all of its tokens that both sides have are equal. Both lengths are page multiples
   * unless `pageAlignedLength` is broken, and then a trailing partial page counts too — which is
   * exactly how the planted match-without-truncation bug shows up as an unaligned match.
   */
  /**
   * The child of `node` filed under the page of `tokens` at `pos` in namespace `extraKey`. A leaf
   * answers at once: building the key (a page of tokens) for a lookup that must miss is skipped.
   */
  protected childAt(node: TreeNode, extraKey: string | null, tokens: ArrayLike<number>, pos: number): TreeNode | undefined {
    return node.children.size === 0 ? undefined : node.children.get(childKeyOf(extraKey, tokens, pos, this.pageSize));
  }

  protected matchLength(nodeKey: Int32Array, tokens: ArrayLike<number>, pos: number, tokenEnd: number): number {
    const limit = Math.min(nodeKey.length, tokenEnd - pos);
    let matched = 0;
    while (matched < limit) {
      const pageEnd = Math.min(matched + this.pageSize, limit);
      for (let i = matched; i < pageEnd; i++) if (nodeKey[i] !== tokens[pos + i]) return matched;
      matched = pageEnd;
    }
    return matched;
  }

  /**
   * Splits `child` after its first `k` tokens: a new node takes `key[:k]` and `value[:k]` (copies)
   * and the child's lock count, priority and hits, and takes the child's place under the parent;
   * the child keeps the rest below it. Sizes do not change: the same tokens stay locked or not.
   *
   * @param child - a node below the root.
   * @param k - split point (tokens), `0 < k < key.length`.
   * @returns the new upper node.
   */
  protected splitNode(child: TreeNode, k: number): TreeNode {
    const parent = child.parent;
    assertTree(parent !== null, `splitNode: node ${child.id} has no parent`);
    assertTree(k > 0 && k < child.key.length, `splitNode: node ${child.id} of ${child.key.length} tokens split at ${k}`);
    const upper = new TreeNode(this.nextNodeId++, parent, child.key.slice(0, k), child.extraKey, child.value === null ? null : child.value.slice(0, k));
    upper.lockRef = child.lockRef;
    upper.priority = child.priority;
    upper.hitCount = child.hitCount;
    upper.lastAccessTime = child.lastAccessTime;
    // A split node is a new node to the engine (its creation time is "now"); the FIFO/FILO order of
    // its tokens only matters once its lower part is gone, by which time it is an ordinary leaf.
    upper.creationTime = this.clock;
    if (child.hostValue !== null) {
      upper.hostValue = child.hostValue.slice(0, k);
      child.hostValue = child.hostValue.slice(k);
    }
    const childKey = childKeyOf(child.extraKey, child.key, 0, this.pageSize);
    child.key = child.key.slice(k);
    if (child.value !== null) child.value = child.value.slice(k);
    child.parent = upper;
    upper.children.set(childKeyOf(child.extraKey, child.key, 0, this.pageSize), child);
    // The upper node starts with the child's first page, so it takes the child's entry in place.
    parent.children.set(childKey, upper);
    this.nodeCountValue += 1;
    return upper;
  }

  /** One node of an `incLockRef`: unlocked → locked moves its tokens to protected. */
  protected incLockRefStep(node: TreeNode): number {
    let delta = 0;
    if (node.lockRef === 0) {
      delta = -node.key.length;
      this.evictableTokens -= node.key.length;
      this.protectedTokens += node.key.length;
    }
    node.lockRef += 1;
    return delta;
  }

  /** One node of a `decLockRef`: locked → unlocked moves its tokens back to evictable. */
  protected decLockRefStep(node: TreeNode): number {
    let delta = 0;
    if (node.lockRef === 1) {
      delta = node.key.length;
      this.evictableTokens += node.key.length;
      this.protectedTokens -= node.key.length;
    }
    node.lockRef -= 1;
    return delta;
  }

  /**
   * Refuses an unlock that would take a lock count below zero, before anything changes.
   *
   * @throws LockRefError naming the node and the ancestor at 0.
   */
  protected checkUnlockable(node: TreeNode): void {
    for (let at = node; at !== this.rootNode; at = at.parent as TreeNode) {
      if (at.lockRef <= 0) {
        const where = at === node ? '' : ` (its ancestor node ${at.id})`;
        throw new LockRefError(`decLockRef(node ${node.id}): node ${at.id}${where} has lockRef ${at.lockRef}; unlocking would take it below zero`);
      }
    }
  }

  // ---- mechanics -------------------------------------------------------------------------------

  private newRoot(): TreeNode {
    const root = new TreeNode(this.nextNodeId++, null, new Int32Array(0), null, new Int32Array(0));
    root.lockRef = 1;
    root.priority = Number.NEGATIVE_INFINITY;
    return root;
  }

  /**
   * What eviction does to one victim: the plain tree gives its slots back and deletes it. A
   * hierarchical cache keeps a backed-up node (slots back, value null) and deletes the rest.
   *
   * @returns the device tokens freed.
   */
  protected evictVictim(node: TreeNode): number {
    const value = node.value as Int32Array;
    this.allocator.free(value);
    this.deleteLeaf(node);
    return value.length;
  }

  /**
   * Insert met an evicted node: the plain tree never keeps one. A hierarchical cache adopts
   * `slots` as the node's value and returns whether those tokens count in the returned prefix
   * length (they must not: the caller would free slots the tree just adopted).
   */
  protected reviveEvicted(node: TreeNode, _slots: Int32Array): boolean {
    assertTree(false, `insert met evicted node ${node.id}; the plain radix tree deletes what it evicts`);
    return false;
  }

  /** A leaf `evict` may take: has slots, unlocked, and no child with slots. */
  protected isEvictableLeaf(node: TreeNode): boolean {
    if (node.value === null || node.lockRef !== 0) return false;
    for (const child of node.children.values()) if (child.value !== null) return false;
    return true;
  }

  /** Removes a childless, unlocked node; an evicted one held no device tokens. */
  protected deleteLeaf(node: TreeNode): void {
    const parent = node.parent;
    assertTree(parent !== null, `deleteLeaf: node ${node.id} has no parent`);
    assertTree(node.children.size === 0, `deleteLeaf: node ${node.id} still has ${node.children.size} children`);
    assertTree(node.lockRef === 0, `deleteLeaf: node ${node.id} has lockRef ${node.lockRef}`);
    const removed = parent.children.delete(childKeyOf(node.extraKey, node.key, 0, this.pageSize));
    assertTree(removed, `deleteLeaf: node ${node.id} is not filed under its parent ${parent.id}`);
    if (node.value !== null) this.evictableTokens -= node.key.length;
    this.nodeCountValue -= 1;
    // A removed node points nowhere, so a stale lock handle fails the ownership check.
    node.parent = null;
  }

  /**
   * `node` must hang below this tree's root (the engine's "This request holds the node from
   * another tree" guard, extended to removed nodes).
   */
  private checkOwned(node: TreeNode, op: string): void {
    let at: TreeNode | null = node;
    // Bounded by the node count: a longer walk means a cycle, i.e. not a node of this tree.
    for (let steps = 0; at !== null && steps <= this.nodeCountValue; steps++) {
      if (at === this.rootNode) return;
      at = at.parent;
    }
    throw new LockRefError(`${op}(node ${node.id}): This request holds the node from another tree (or a node already evicted or reset)`);
  }

  private extraKeyOf(key: RadixKey): string | null {
    const extraKey = key.extraKey ?? null;
    if (extraKey !== null && typeof extraKey !== 'string') {
      throw new CacheConfigError(`extraKey ${String(extraKey)} is neither a string nor null`);
    }
    return extraKey;
  }

  private validateInsert(tokens: ArrayLike<number>, value: ArrayLike<number>, options: RadixTreeInsertOptions): void {
    const ps = this.pageSize;
    const tokenCount = tokens.length;
    if (value.length !== tokenCount) {
      throw new CacheConfigError(`insert key of ${tokenCount} tokens and value of ${value.length} slots differ in length`);
    }
    if (tokenCount % ps !== 0) {
      throw new CacheConfigError(`insert key of ${tokenCount} tokens is not a multiple of the tree page size ${ps}`);
    }
    for (let i = 0; i < tokenCount; i++) {
      const token = tokens[i] as number;
      if (!Number.isInteger(token) || token < kInt32Min || token > kInt32Max) {
        throw new CacheConfigError(`insert key: token ${String(token)} at position ${i} is not an int32`);
      }
      const slot = value[i] as number;
      if (!Number.isInteger(slot) || slot < 0 || slot > kInt32Max) {
        throw new ArgumentError(`insert value: slot ${String(slot)} at position ${i} is not a non-negative int32`);
      }
    }
    const { prevPrefixLen, priority } = options;
    if (prevPrefixLen !== undefined && (!Number.isInteger(prevPrefixLen) || prevPrefixLen < 0 || prevPrefixLen % ps !== 0)) {
      throw new RequestStateError(`cache_protected_len must be page aligned: prevPrefixLen ${String(prevPrefixLen)} is not a non-negative multiple of the tree page size ${ps}`);
    }
    if (priority !== undefined && !Number.isFinite(priority)) {
      throw new ArgumentError(`insert priority ${String(priority)} is not a finite number`);
    }
  }
}
