/**
 * A scheduler in miniature for the HiCache tests: a real paged device allocator (kernel page 2 ×
 * DCP 2 = page 4 by default, checks on, so a page given back twice throws), a real host slot pool
 * on the same page (checks on), a req-to-token pool and a {@link HiRadixCache}. Requests are
 * admitted (match, lock, row write), extended with `allocExtend` and finished with
 * `releaseRequest`, the way the engine's scheduler does it; {@link expectHiInvariants} checks the
 * pools, the tree and the HiCache laws (the invariants `hiradix_cache.py` keeps) at quiet points.
 *
 * (Ideas from `@kvfuzz/prefix-cache`'s request fixture; test support is never imported across
 * packages.)
 */
import { PagedAllocator } from '@kvfuzz/allocator-core';
import { HostSlotPool } from '@kvfuzz/host-pool';
import { newReqKvInfo, ReqToTokenPool, type FinishPath, type Req, type TreeNode } from '@kvfuzz/prefix-cache';
import { expect } from 'vitest';
import { HiRadixCache, kLoadBackThresholdTokens, type WritePolicy } from '../hi-radix-cache.js';

/** The geometry of one fixture. */
export interface HiCacheGeometry {
  /** @defaultValue 2 */
  readonly kernelPageSize: number;
  /** @defaultValue 2 (device and host page 2 × 2 = 4 slots) */
  readonly dcpSize: number;
  /** Device pages that can be handed out (ids 1 … devicePageCount). @defaultValue 16 */
  readonly devicePageCount: number;
  /** The host pool's requested size; the pool adds one page. @defaultValue 60 (16 pages = 64 slots) */
  readonly hostSizeTokens: number;
  /** @defaultValue 4 */
  readonly rowCount: number;
  /** Positions per req-to-token row. @defaultValue 64 */
  readonly rowLength: number;
  /** @defaultValue 'write_through' */
  readonly writePolicy: WritePolicy;
  /** @defaultValue 'unified' */
  readonly finishPath: FinishPath;
  /** @defaultValue kLoadBackThresholdTokens (10) */
  readonly loadBackThresholdTokens: number;
}

/** The default geometry: page 4 (kernel page 2 × DCP 2), 16 device pages, 64 host slots, 4 rows of 64. */
export const kDefaultHiGeometry: HiCacheGeometry = {
  kernelPageSize: 2,
  dcpSize: 2,
  devicePageCount: 16,
  hostSizeTokens: 60,
  rowCount: 4,
  rowLength: 64,
  writePolicy: 'write_through',
  finishPath: 'unified',
  loadBackThresholdTokens: kLoadBackThresholdTokens,
};

export interface HiCacheFixture {
  readonly geometry: HiCacheGeometry;
  /** The device allocator the cache evicts into and loads from. */
  readonly device: PagedAllocator;
  /** The host pool the controller writes to. */
  readonly host: HostSlotPool;
  readonly reqToToken: ReqToTokenPool;
  readonly cache: HiRadixCache;
  /** Device (= host) page (slots). */
  readonly pageSize: number;
  /** Requests admitted and not yet finished (their rows own device pages). */
  readonly live: Req[];
  nextId: number;
}

export function hiCacheFixture(overrides: Partial<HiCacheGeometry> = {}): HiCacheFixture {
  const geometry = { ...kDefaultHiGeometry, ...overrides };
  const pageSize = geometry.kernelPageSize * geometry.dcpSize;
  const device = new PagedAllocator({
    sizeTokens: geometry.devicePageCount * pageSize,
    kernelPageSize: geometry.kernelPageSize,
    dcpSize: geometry.dcpSize,
    needSort: false,
    checks: true,
  });
  const host = new HostSlotPool({ sizeTokens: geometry.hostSizeTokens, pageSize, dcpSize: geometry.dcpSize, checks: true });
  const reqToToken = new ReqToTokenPool(geometry.rowCount, geometry.rowLength);
  const cache = new HiRadixCache({
    allocator: device,
    reqToToken,
    host,
    kernelPageSize: geometry.kernelPageSize,
    finishPath: geometry.finishPath,
    writePolicy: geometry.writePolicy,
    loadBackThresholdTokens: geometry.loadBackThresholdTokens,
  });
  return { geometry, device, host, reqToToken, cache, pageSize, live: [], nextId: 0 };
}

/** Token ids of prompt family `family`: `family * 10000 + position`; two families share no page. */
export function prompt(family: number, length: number): number[] {
  return Array.from({ length }, (_, pos) => family * 10000 + pos);
}

/**
 * Admits a request the scheduler's way: takes a row, matches `tokens` with `cache.matchPrefix`
 * (which counts a hit and may write through), locks the match and writes its slots into the row.
 * The request holds the matched tokens: committed = allocated = protected.
 */
export function admit(fx: HiCacheFixture, tokens: readonly number[], extraKey: string | null = null): Req {
  const match = fx.cache.matchPrefix(tokens, extraKey);
  return admitWith(fx, tokens, extraKey, match.indices, match.lastNode);
}

/** Admits a request that matched nothing (as if its prefix was cached after it was scheduled): no hit is counted. */
export function admitUnmatched(fx: HiCacheFixture, tokens: readonly number[], extraKey: string | null = null): Req {
  return admitWith(fx, tokens, extraKey, new Int32Array(0), fx.cache.tree.root);
}

function admitWith(fx: HiCacheFixture, tokens: readonly number[], extraKey: string | null, indices: Int32Array, lastNode: TreeNode): Req {
  const rowIdx = fx.reqToToken.alloc();
  if (rowIdx === null) throw new Error('fixture: no free req-to-token row');
  fx.cache.lock(lastNode);
  fx.reqToToken.write(rowIdx, 0, indices);
  const req: Req = { id: fx.nextId++, tokens: tokens.slice(), extraKey, kv: newReqKvInfo(rowIdx, indices.length), lastNode };
  fx.live.push(req);
  return req;
}

/** Extends a request to `seqLen` tokens with `allocExtend` (`lastLoc` from its row); committed = allocated = seqLen. */
export function extend(fx: HiCacheFixture, req: Req, seqLen: number): Int32Array {
  const kv = req.kv;
  const pre = kv.kvAllocatedLen;
  const row = fx.reqToToken.row(kv.reqPoolIdx);
  const out = fx.device.allocExtend({ prefixLens: [pre], seqLens: [seqLen], lastLoc: [pre === 0 ? -1 : (row[pre - 1] as number)] });
  if (out === null) throw new Error(`fixture: device pool too small to extend request ${req.id} from ${pre} to ${seqLen}`);
  fx.reqToToken.write(kv.reqPoolIdx, pre, out);
  kv.kvAllocatedLen = seqLen;
  kv.kvCommittedLen = seqLen;
  return out;
}

/** Finishes a request: `releaseRequest` caches its page-aligned prefix, gives back the rest and frees the row. */
export function finish(fx: HiCacheFixture, req: Req): void {
  fx.cache.releaseRequest(req);
  fx.live.splice(fx.live.indexOf(req), 1);
}

/** A request that matched nothing, extended to all of `tokens` and finished: caches `tokens` without counting a hit. */
export function cachePrompt(fx: HiCacheFixture, tokens: readonly number[], extraKey: string | null = null): void {
  const req = admitUnmatched(fx, tokens, extraKey);
  extend(fx, req, tokens.length);
  finish(fx, req);
}

/**
 * Inserts `tokens` at the tree level with fresh device slots for all of them (no request); the tree
 * gives back the slots that duplicate device-resident nodes itself (`prevPrefixLen: 0`). Returns
 * the insert's prefix length.
 */
export function insertFresh(fx: HiCacheFixture, tokens: readonly number[]): number {
  const slots = fx.device.alloc(tokens.length);
  if (slots === null) throw new Error(`fixture: device pool too small for ${tokens.length} tokens`);
  return fx.cache.tree.insert({ tokens, extraKey: null }, slots, { prevPrefixLen: 0 });
}

/** Writes `node` to the host through the controller and completes the copy at once (a finished backup). */
export function backUp(fx: HiCacheFixture, node: TreeNode): void {
  const op = fx.cache.controller.write(node.value as Int32Array, node.id);
  if (op === null) throw new Error(`fixture: host pool too small to back up node ${node.id}`);
  node.hostValue = op.host;
  fx.cache.controller.ack(op.id);
}

/** Acknowledges every copy in flight, oldest first. */
export function ackAll(fx: HiCacheFixture): void {
  for (const op of fx.cache.pendingCopies()) fx.cache.ack(op.id);
}

/**
 * The node whose path from the root spells exactly `tokens` (no stamps, no splits, no hits).
 *
 * @throws Error when no node ends exactly there.
 */
export function nodeAt(fx: HiCacheFixture, tokens: readonly number[], extraKey: string | null = null): TreeNode {
  const found = findNode(fx, tokens, extraKey);
  if (found === null) throw new Error(`fixture: no node ends at ${tokens.length} tokens of [${tokens.slice(0, 4).join(', ')}, …]`);
  return found;
}

/** {@link nodeAt}, or null when no node ends exactly at `tokens`. */
export function findNode(fx: HiCacheFixture, tokens: readonly number[], extraKey: string | null = null): TreeNode | null {
  let node = fx.cache.tree.root;
  let pos = 0;
  // Bounded by the key: each step consumes a whole child key.
  while (pos < tokens.length) {
    let next: TreeNode | null = null;
    for (const child of node.children.values()) {
      if (child.extraKey !== extraKey || child.key.length > tokens.length - pos) continue;
      if (child.key.every((token, i) => token === tokens[pos + i])) next = child;
    }
    if (next === null) return null;
    node = next;
    pos += next.key.length;
  }
  return node;
}

/** Every node of the tree but the root, parents first. */
export function allNodes(fx: HiCacheFixture): TreeNode[] {
  return [...fx.cache.tree.nodes()];
}

/** Device pages held (neither free nor staged), ascending. */
export function devicePagesHeld(fx: HiCacheFixture): number[] {
  const { free, staged } = fx.device.inspect();
  const notHeld = new Set([...free, ...staged]);
  const held: number[] = [];
  for (let page = 1; page <= fx.device.numPages; page++) if (!notHeld.has(page)) held.push(page);
  return held;
}

/** Host slots held (neither free nor pending), ascending. */
export function hostSlotsHeld(fx: HiCacheFixture): number[] {
  const { free, pending } = fx.host.inspect();
  const notHeld = new Set<number>(free);
  for (const chunk of pending) for (const slot of chunk) notHeld.add(slot);
  const held: number[] = [];
  for (let slot = 0; slot < fx.host.size; slot++) if (!notHeld.has(slot)) held.push(slot);
  return held;
}

/** What a call that must change nothing is compared by: both pools, the tree's shape and sizes, the copies in flight. */
export function hiState(fx: HiCacheFixture): unknown {
  return {
    device: fx.device.backupState(),
    deviceAvailable: fx.device.availableSize(),
    host: fx.host.inspect(),
    hostAvailable: fx.host.availableSize(),
    nodes: allNodes(fx).map((n) => ({
      id: n.id,
      parent: n.parent?.id ?? null,
      key: Array.from(n.key),
      value: n.value === null ? null : Array.from(n.value),
      hostValue: n.hostValue === null ? null : Array.from(n.hostValue),
      lockRef: n.lockRef,
    })),
    evictable: fx.cache.evictableSize(),
    protected: fx.cache.protectedSize(),
    pending: fx.cache.pendingCopies().map((op) => op.id),
  };
}

/**
 * The quiet-point check: both pools' and the tree's own `verifyInvariants`, then the HiCache laws:
 * (1) evicted ⇒ backed up; (2) an evicted node's children are evicted; (3) a host copy is
 * as long as its key; (4) every held host slot belongs to exactly one node's host copy, and every
 * host copy's slots are held; (5) every held device page belongs to exactly one node or one live
 * request's own row part; (6) the node of every copy in flight is in the tree and locked.
 */
export function expectHiInvariants(fx: HiCacheFixture): void {
  fx.device.verifyInvariants();
  fx.host.verifyInvariants();
  fx.cache.tree.verifyInvariants();
  const nodes = allNodes(fx);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const hostOwner = new Map<number, number>();
  const pageOwner = new Map<number, string>();
  const own = (page: number, owner: string): void => {
    expect(pageOwner.get(page), `device page ${page} held by ${pageOwner.get(page)} and ${owner}`).toBeUndefined();
    pageOwner.set(page, owner);
  };
  for (const node of nodes) {
    if (node.value === null) {
      expect(node.hostValue, `(1) evicted node ${node.id} has no host copy`).not.toBeNull();
      for (const child of node.children.values()) expect(child.value, `(2) evicted node ${node.id} has device child ${child.id}`).toBeNull();
    }
    if (node.hostValue !== null) {
      expect(node.hostValue.length, `(3) node ${node.id} host copy length`).toBe(node.key.length);
      for (const slot of node.hostValue) {
        expect(hostOwner.get(slot), `(4) host slot ${slot} owned by node ${hostOwner.get(slot)} and node ${node.id}`).toBeUndefined();
        hostOwner.set(slot, node.id);
      }
    }
    if (node.value !== null) for (const page of new Set(Array.from(node.value, (slot) => Math.floor(slot / fx.pageSize)))) own(page, `node ${node.id}`);
  }
  for (const req of fx.live) {
    const row = fx.reqToToken.row(req.kv.reqPoolIdx);
    const pages = new Set(Array.from(row.subarray(req.kv.cacheProtectedLen, req.kv.kvAllocatedLen), (slot) => Math.floor(slot / fx.pageSize)));
    for (const page of pages) own(page, `request ${req.id}`);
  }
  expect([...hostOwner.keys()].sort((a, b) => a - b), '(4) host slots held = host copies').toEqual(hostSlotsHeld(fx));
  expect([...pageOwner.keys()].sort((a, b) => a - b), '(5) device pages held = node values + live rows').toEqual(devicePagesHeld(fx));
  for (const op of fx.cache.pendingCopies()) {
    const node = byId.get(op.nodeId);
    expect(node, `(6) copy ${op.id} is for node ${op.nodeId}, not in the tree`).toBeDefined();
    expect((node as TreeNode).lockRef, `(6) node ${op.nodeId} of copy ${op.id} is not locked`).toBeGreaterThan(0);
  }
}

/** Runs `act`, then {@link expectHiInvariants}. */
export function step<T>(fx: HiCacheFixture, act: () => T): T {
  const result = act();
  expectHiInvariants(fx);
  return result;
}
