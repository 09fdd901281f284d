/**
 * A scheduler in miniature for request-side tests: a real paged allocator (checks on, so a page
 * given back twice throws) behind a {@link RecordingAllocator} that records every give-back, a
 * req-to-token pool, and a {@link RadixCache}. Requests are admitted (match, lock, row write) and
 * extended the way the engine's `alloc_for_extend` does it.
 */
import { PagedAllocator } from '@kvfuzz/allocator-core';
import { expect } from 'vitest';
import { RadixCache, type FinishPath } from '../radix-cache.js';
import { newReqKvInfo, type ReqKvInfo } from '../req-kv-info.js';
import { ReqToTokenPool } from '../req-to-token-pool.js';
import type { Req } from '../request.js';
import { RecordingAllocator } from './recording-allocator.js';
import { snapshotTree } from './tree-snapshot.js';

/** The geometry of one fixture. */
export interface CacheGeometry {
  /** @defaultValue 2 */
  readonly kernelPageSize: number;
  /** @defaultValue 4 (allocator page 2 × 4 = 8 slots) */
  readonly dcpSize: number;
  /** Allocator pages that can be handed out (ids 1 … pageCount). @defaultValue 16 */
  readonly pageCount: number;
  /** @defaultValue 4 */
  readonly rowCount: number;
  /** Positions per req-to-token row. @defaultValue 64 */
  readonly rowLength: number;
  /** @defaultValue 'unified' */
  readonly finishPath: FinishPath;
  /** @defaultValue false */
  readonly disabled: boolean;
}

/** The default geometry: kernel page 2 × DCP 4 = allocator page 8, 16 pages, 4 rows of 64. */
export const kDefaultGeometry: CacheGeometry = { kernelPageSize: 2, dcpSize: 4, pageCount: 16, rowCount: 4, rowLength: 64, finishPath: 'unified', disabled: false };

export interface CacheFixture {
  readonly geometry: CacheGeometry;
  /** The real allocator; `inspect()` and `backupState()` read it. */
  readonly pool: PagedAllocator;
  /** Wraps `pool`; the cache gives back through it, so `recorder.calls` lists every give-back. */
  readonly recorder: RecordingAllocator;
  readonly reqToToken: ReqToTokenPool;
  readonly cache: RadixCache;
  /** Allocator page (slots). */
  readonly pageSize: number;
  nextId: number;
}

export function cacheFixture(overrides: Partial<CacheGeometry> = {}): CacheFixture {
  const geometry = { ...kDefaultGeometry, ...overrides };
  const pageSize = geometry.kernelPageSize * geometry.dcpSize;
  const pool = new PagedAllocator({ sizeTokens: geometry.pageCount * pageSize, kernelPageSize: geometry.kernelPageSize, dcpSize: geometry.dcpSize, needSort: false, checks: true });
  const recorder = RecordingAllocator.wrapping(pool);
  const reqToToken = new ReqToTokenPool(geometry.rowCount, geometry.rowLength);
  const cache = new RadixCache({ allocator: recorder, reqToToken, kernelPageSize: geometry.kernelPageSize, finishPath: geometry.finishPath, disabled: geometry.disabled });
  return { geometry, pool, recorder, reqToToken, cache, pageSize, nextId: 0 };
}

/** Token ids of prompt family `family`: `family * 10000 + position`; two families share no page. */
export function prompt(family: number, length: number): number[] {
  return Array.from({ length }, (_, pos) => family * 10000 + pos);
}

/**
 * Admits a request: takes a row, matches `tokens` in the cache, locks the match and writes its
 * slots into the row. The request holds `matched` tokens: committed = allocated = protected.
 */
export function admit(fx: CacheFixture, tokens: readonly number[], extraKey: string | null = null): Req {
  const rowIdx = fx.reqToToken.alloc();
  if (rowIdx === null) throw new Error('fixture: no free req-to-token row');
  const match = fx.cache.matchPrefix(tokens, extraKey);
  fx.cache.lock(match.lastNode);
  fx.reqToToken.write(rowIdx, 0, match.indices);
  return { id: fx.nextId++, tokens: tokens.slice(), extraKey, kv: newReqKvInfo(rowIdx, match.indices.length), lastNode: match.lastNode };
}

/** Extends a request to `seqLen` tokens with `allocExtend` (one request, `lastLoc` from its row); committed = allocated = seqLen. */
export function extend(fx: CacheFixture, req: Req, seqLen: number): Int32Array {
  const kv = req.kv;
  const pre = kv.kvAllocatedLen;
  const row = fx.reqToToken.row(kv.reqPoolIdx);
  const out = fx.pool.allocExtend({ prefixLens: [pre], seqLens: [seqLen], lastLoc: [pre === 0 ? -1 : (row[pre - 1] as number)] });
  if (out === null) throw new Error(`fixture: pool too small to extend request ${req.id} from ${pre} to ${seqLen}`);
  fx.reqToToken.write(kv.reqPoolIdx, pre, out);
  kv.kvAllocatedLen = seqLen;
  kv.kvCommittedLen = seqLen;
  return out;
}

/** A copy of row positions `[start, end)` of the request's row. */
export function rowSlots(fx: CacheFixture, req: Req, start: number, end: number): number[] {
  return Array.from(fx.reqToToken.row(req.kv.reqPoolIdx).subarray(start, end));
}

/** The distinct allocator pages of row positions `[start, end)`, ascending. */
export function rowPages(fx: CacheFixture, req: Req, start: number, end: number): number[] {
  return [...new Set(rowSlots(fx, req, start, end).map((slot) => Math.floor(slot / fx.pageSize)))].sort((a, b) => a - b);
}

/** The slots the cache matches for `tokens` (matching stamps and may split nodes, never changes sizes). */
export function matched(fx: CacheFixture, tokens: readonly number[], extraKey: string | null = null): number[] {
  return Array.from(fx.cache.matchPrefix(tokens, extraKey).indices);
}

/**
 * Runs `act` and returns the pages it gave back, ascending. Also asserts that the free list grew by
 * exactly that many pages (no page counted twice) and that the allocator's invariants hold.
 */
export function freedPages(fx: CacheFixture, act: () => void): number[] {
  const before = new Set(fx.pool.inspect().free);
  const availableBefore = fx.pool.availableSize();
  act();
  const fresh = Array.from(fx.pool.inspect().free)
    .filter((page) => !before.has(page))
    .sort((a, b) => a - b);
  expect(fx.pool.availableSize() - availableBefore).toBe(fresh.length * fx.pageSize);
  fx.pool.verifyInvariants();
  return fresh;
}

/** The give-backs recorded while `act` ran: `free` as slot lists, `freeSegments` as `[startPos, slots]` pairs. */
export function recordedBy(fx: CacheFixture, act: () => void): (readonly ['free', number[]] | readonly ['freeSegments', [number, number[]][]])[] {
  const first = fx.recorder.calls.length;
  act();
  return fx.recorder.calls.slice(first).map((call) => (call.op === 'free' ? (['free', call.slots] as const) : (['freeSegments', call.segments.map((s) => [s.startPos, s.slots] as [number, number[]])] as const)));
}

/** Releases every row still live, evicts the whole tree, and asserts that every page is free and nothing is locked. */
export function expectDrainsFull(fx: CacheFixture, live: readonly Req[] = []): void {
  for (const req of live) fx.reqToToken.free(req.kv.reqPoolIdx);
  expect(fx.cache.protectedSize()).toBe(0);
  fx.cache.evict(fx.cache.totalSize());
  expect(fx.cache.totalSize()).toBe(0);
  expect(fx.pool.availableSize()).toBe(fx.geometry.pageCount * fx.pageSize);
  fx.pool.verifyInvariants();
  fx.cache.tree.verifyInvariants();
}

/** A copy of row `rowIdx`, or null when it is not live. */
function liveRowCopy(fx: CacheFixture, rowIdx: number): number[] | null {
  try {
    return Array.from(fx.reqToToken.row(rowIdx));
  } catch {
    return null;
  }
}

/** What a rejected call must leave as it was: the allocator, the tree, the request's record and lock, its row. */
function stateOf(fx: CacheFixture, req: Req | null): unknown {
  return {
    allocator: fx.pool.backupState(),
    tree: snapshotTree(fx.cache.tree),
    kv: req === null ? null : ({ ...req.kv } satisfies ReqKvInfo),
    lastNodeId: req?.lastNode?.id ?? null,
    row: req === null ? null : liveRowCopy(fx, req.kv.reqPoolIdx),
    rowsFree: fx.reqToToken.availableRows(),
    calls: fx.recorder.calls.length,
  };
}

/**
 * Runs `call`, expects it to throw `errorClass` with a message naming every value of `named`, and
 * expects the allocator, tree, request and row to be exactly as before (STYLE rule 18).
 */
export function expectRejected(fx: CacheFixture, req: Req | null, call: () => unknown, errorClass: abstract new (...args: never[]) => Error, named: readonly (string | number)[]): void {
  const before = stateOf(fx, req);
  const lastNode = req?.lastNode ?? null;
  let caught: unknown;
  try {
    call();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(errorClass);
  for (const value of named) expect((caught as Error).message).toContain(String(value));
  expect(stateOf(fx, req)).toEqual(before);
  if (req !== null) expect(req.lastNode).toBe(lastNode);
  fx.pool.verifyInvariants();
  fx.cache.tree.verifyInvariants();
}
