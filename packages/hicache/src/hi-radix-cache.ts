import { ArgumentError } from '@kvfuzz/allocator-core';
import { CacheConfigError, RadixCache, type RadixCacheConfig, type RadixTree, type TreeNode } from '@kvfuzz/prefix-cache';
import { HiCacheController, type CopyOp, type HostSlots } from './hicache-controller.js';
import { HiRadixTree } from './hi-radix-tree.js';

/** When device KV is copied to the host. */
export type WritePolicy = 'write_through' | 'write_through_selective' | 'write_back';
export const kWritePolicies: readonly WritePolicy[] = ['write_through', 'write_through_selective', 'write_back'];

/** Hits before a node is written through (the newer engine's thresholds). */
const kWriteThroughHits: Record<WritePolicy, number> = { write_through: 1, write_through_selective: 2, write_back: Number.POSITIVE_INFINITY };
/** Load-backs shorter than this (tokens) are not worth a copy (the engine's `load_back_threshold`). */
export const kLoadBackThresholdTokens = 10;

export interface HiRadixCacheConfig extends RadixCacheConfig {
  readonly host: HostSlots;
  /** @defaultValue 'write_through' */
  readonly writePolicy?: WritePolicy;
  /** @defaultValue kLoadBackThresholdTokens */
  readonly loadBackThresholdTokens?: number;
}

/** Where a key's cached prefix lives. */
export interface HostMatch {
  /** Tokens with device slots (the device match). */
  readonly deviceLength: number;
  /** Tokens after them whose KV is only on the host (the engine's `host_hit_length`). */
  readonly hostHitLength: number;
  /** The deepest node of the host part, or the device match's last node when there is none. */
  readonly lastHostNode: TreeNode;
}

/**
 * The hierarchical radix cache (the engine's `HiRadixCache`): a radix cache whose nodes may keep a
 * host copy. Write-through copies a node to the host once it is hit often enough (locking it until
 * the copy is acknowledged); write-back copies a victim at eviction. Device eviction keeps backed-up
 * nodes (evicted, value null); host eviction removes them; load-back brings an evicted chain to the
 * device again; an insert through an evicted node revives it with the request's slots.
 */
export class HiRadixCache extends RadixCache {
  readonly controller: HiCacheController;
  readonly writePolicy: WritePolicy;
  readonly loadBackThresholdTokens: number;
  /** The node each copy in flight belongs to, and whether it holds a lock on it. */
  protected readonly copies = new Map<number, { readonly node: TreeNode; readonly locked: boolean }>();

  /** @throws CacheConfigError for an unknown write policy or a bad threshold. */
  constructor(config: HiRadixCacheConfig) {
    super(config);
    this.writePolicy = config.writePolicy ?? 'write_through';
    if (!kWritePolicies.includes(this.writePolicy)) throw new CacheConfigError(`writePolicy ${String(this.writePolicy)} is not one of ${kWritePolicies.join(', ')}`);
    this.loadBackThresholdTokens = config.loadBackThresholdTokens ?? kLoadBackThresholdTokens;
    if (!Number.isInteger(this.loadBackThresholdTokens) || this.loadBackThresholdTokens < 0) {
      throw new CacheConfigError(`loadBackThresholdTokens ${String(config.loadBackThresholdTokens)} is not a non-negative integer`);
    }
    this.controller = new HiCacheController(config.allocator, config.host);
    this.hiTree.backUpForEviction = (node) => this.writeBackForEviction(node);
    this.hiTree.freeHostCopy = (hostValue) => void this.controller.evictHost(hostValue);
  }

  get hiTree(): HiRadixTree {
    return this.tree as HiRadixTree;
  }

  protected override createTree(config: ConstructorParameters<typeof RadixTree>[0]): RadixTree {
    return new HiRadixTree(config);
  }

  /** The device match; every node on it that is hit often enough is written through to the host. */
  override matchPrefix(tokens: ArrayLike<number>, extraKey: string | null): { readonly indices: Int32Array; readonly lastNode: TreeNode } {
    const match = super.matchPrefix(tokens, extraKey);
    const path: TreeNode[] = [];
    for (let at: TreeNode | null = match.lastNode; at !== null && at !== this.tree.root; at = at.parent) path.unshift(at);
    for (const node of path) this.maybeWriteThrough(node);
    return match;
  }

  /** The device match (stamped like any match, without write-through) and the host-only part after it. */
  matchHost(tokens: ArrayLike<number>, extraKey: string | null): HostMatch {
    const match = super.matchPrefix(tokens, extraKey);
    const end = Math.floor(tokens.length / this.pageSize) * this.pageSize;
    const host = this.hiTree.matchEvicted(match.lastNode, tokens, match.indices.length, end, extraKey);
    return { deviceLength: match.indices.length, hostHitLength: host.pos - match.indices.length, lastHostNode: host.node };
  }

  /**
   * Brings the evicted chain ending at `node` back to the device: the chain's host copies go to
   * fresh device slots (evicting device KV once if the pool is short), and `node` stays locked until
   * the load is acknowledged. Skipped (null) when the chain is shorter than the threshold or longer
   * than `memQuotaTokens`.
   *
   * @returns the load in flight, or null when nothing was loaded.
   * @throws ArgumentError for a bad quota; InvariantError when an evicted node has no backup.
   */
  loadBack(node: TreeNode, memQuotaTokens: number): CopyOp | null {
    if (!Number.isInteger(memQuotaTokens) || memQuotaTokens < 0) throw new ArgumentError(`memQuotaTokens ${String(memQuotaTokens)} is not a non-negative integer`);
    const chain: TreeNode[] = [];
    let ancestor: TreeNode = node;
    for (; ancestor.value === null; ancestor = ancestor.parent as TreeNode) {
      if (ancestor.hostValue === null) throw new CacheConfigError(`node ${ancestor.id}: No backup available on evicted nodes, should not happen`);
      chain.unshift(ancestor);
    }
    const total = chain.reduce((n, c) => n + (c.hostValue as Int32Array).length, 0);
    if (chain.length === 0 || total < this.loadBackThresholdTokens) return null;
    // The ancestor must survive the eviction a short device pool triggers below; locking it takes
    // its tokens out of what eviction may free, so the quota counts them (the engine's `delta`).
    const delta = ancestor === this.tree.root ? 0 : this.tree.incLockRef(ancestor);
    if (total > memQuotaTokens + delta) {
      if (ancestor !== this.tree.root) this.tree.decLockRef(ancestor);
      return null;
    }
    const host = new Int32Array(total);
    let offset = 0;
    for (const c of chain) {
      host.set(c.hostValue as Int32Array, offset);
      offset += (c.hostValue as Int32Array).length;
    }
    // Pinned, so that the host eviction a write-back inside the device eviction may run keeps them.
    for (const c of chain) c.hostRefCounter += 1;
    let op = this.controller.load(host, node.id);
    if (op === null) {
      this.tree.evict(total);
      op = this.controller.load(host, node.id);
    }
    for (const c of chain) c.hostRefCounter -= 1;
    if (ancestor !== this.tree.root) this.tree.decLockRef(ancestor);
    if (op === null) return null;
    offset = 0;
    for (const c of chain) {
      const length = (c.hostValue as Int32Array).length;
      this.hiTree.adopt(c, op.device.slice(offset, offset + length));
      offset += length;
    }
    this.tree.incLockRef(node);
    this.copies.set(op.id, { node, locked: true });
    return op;
  }

  /** Host eviction of at least `numTokens` host tokens (fewer when not enough are evictable). */
  evictHost(numTokens: number): number {
    return this.hiTree.evictHost(numTokens, (hostValue) => this.controller.evictHost(hostValue));
  }

  /** Copies in flight, oldest first. */
  pendingCopies(): CopyOp[] {
    return this.controller.pending();
  }

  /**
   * Completes a copy: a write-through or a load releases the lock it held.
   *
   * @throws Error when no copy with that id is in flight.
   */
  ack(opId: number): CopyOp {
    const op = this.controller.ack(opId);
    const copy = this.copies.get(opId);
    this.copies.delete(opId);
    if (copy !== undefined && copy.locked) this.tree.decLockRef(copy.node);
    return op;
  }

  /** Every copy forgotten, the host pool cleared, an empty tree (the caller clears the device pool). */
  clearAll(): void {
    this.controller.clear();
    this.copies.clear();
    this.controller.host.clear();
    this.reset();
  }

  /**
   * Write-through: a node hit often enough, not yet backed up, whose parent is the root or backed
   * up (backed-up nodes form a root-closed prefix), is copied to the host and locked until the copy
   * is acknowledged — so its device slots cannot be evicted from under the copy.
   */
  protected maybeWriteThrough(node: TreeNode): void {
    const parent = node.parent;
    if (node.hitCount < kWriteThroughHits[this.writePolicy] || node.hostValue !== null || node.value === null) return;
    if (parent === null || (parent !== this.tree.root && parent.hostValue === null)) return;
    const op = this.writeWithRetry(node);
    if (op === null) return;
    node.hostValue = op.host;
    this.lockForWrite(node, op);
  }

  /** The write-through lock (the planted bug `write-through-unlocked` overrides it to take none). */
  protected lockForWrite(node: TreeNode, op: CopyOp): void {
    this.tree.incLockRef(node);
    this.copies.set(op.id, { node, locked: true });
  }

  /**
   * Write-back: an unbacked eviction victim is copied first, and the copy is waited for at once.
   * Unlike write-through it does not wait for the parent's backup (the engine skips that check
   * when writing back): the parent is backed up in turn when it becomes a victim.
   */
  private writeBackForEviction(node: TreeNode): boolean {
    if (this.writePolicy !== 'write_back') return false;
    const op = this.writeWithRetry(node);
    if (op === null) return false;
    node.hostValue = op.host;
    this.controller.ack(op.id);
    return true;
  }

  /** A host write, evicting host KV once when the host pool is short. */
  private writeWithRetry(node: TreeNode): CopyOp | null {
    const value = node.value as Int32Array;
    let op = this.controller.write(value, node.id);
    if (op === null) {
      this.evictHost(value.length);
      op = this.controller.write(value, node.id);
    }
    return op;
  }
}
