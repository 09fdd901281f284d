/**
 * The scheduler steps the lifecycle commands share: admit a request (match, lock, write the row),
 * run a prefill chunk, finish a request. Each checks what it can right where it happens.
 */
import { newReqKvInfo, type Req } from '@kvfuzz/prefix-cache';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import type { LiveRequest, PrefixModel, PrefixReal } from '../prefix-model-state.js';
import { appendToken, checkNullIsShort, checkRequest, evictShortfall, expectRefused, writeContent } from '../prefix-model-io.js';
import { extendHash, seedHash, sharedToken, uniqueToken } from '../prompts.js';

/** The shape of a prompt: `shared` tokens of shared prefix `prefix`, then `own` tokens of its own. */
export interface PromptShape {
  readonly prefix: number;
  readonly shared: number;
  readonly own: number;
  readonly extraKey: string | null;
}

/** A prompt shape as its builders take it, its fields in the printed order. */
export function shapeData(s: PromptShape): { readonly prefix: number; readonly shared: number; readonly own: number; readonly extraKey: string | null } {
  return { prefix: s.prefix, shared: s.shared, own: s.own, extraKey: s.extraKey };
}

/** Admits a request: match its prompt (all but the last token), lock the match, write the row. Null when no row is free. */
export function admit(m: PrefixModel, r: PrefixReal, shape: PromptShape, op: string): LiveRequest | null {
  const rowIdx = r.reqToToken.alloc();
  if (rowIdx === null) return null;
  const id = m.nextId++;
  const promptLen = shape.shared + Math.max(1, shape.own);
  const tokens: number[] = [];
  for (let pos = 0; pos < promptLen; pos++) tokens.push(pos < shape.shared ? sharedToken(shape.prefix, pos) : uniqueToken(id, pos));
  const hashSeed = seedHash(shape.extraKey);
  const prefixHash: number[] = [];
  let h = hashSeed;
  for (const token of tokens) prefixHash.push((h = extendHash(h, token)));
  const match = r.cache.matchPrefix(tokens.slice(0, promptLen - 1), shape.extraKey);
  const matched = match.indices.length;
  if (matched % m.pageSize !== 0 || matched > promptLen - 1) {
    throw new LedgerViolation('match-length', `${op}: matchPrefix returned ${matched} tokens for a ${promptLen - 1}-token key (page ${m.pageSize})`);
  }
  r.cache.lock(match.lastNode);
  r.reqToToken.write(rowIdx, 0, match.indices);
  const req: Req = { id, tokens, extraKey: shape.extraKey, kv: newReqKvInfo(rowIdx, matched), lastNode: match.lastNode };
  const lr: LiveRequest = { req, tokens, prefixHash, promptLen, hashSeed, committed: matched, allocated: matched, protectedLen: matched };
  m.live.push(lr);
  checkRequest(m, r, lr, op, true);
  return lr;
}

/**
 * One prefill chunk of up to `chunk` tokens; a chunk that does not finish the prompt is cached
 * (`cacheUnfinishedReq`). Returns false when the pool was short (the request waits).
 */
export function prefillChunk(m: PrefixModel, r: PrefixReal, lr: LiveRequest, chunk: number, op: string): boolean {
  const ps = m.pageSize;
  const pre = lr.allocated;
  const seq = Math.min(lr.promptLen, pre + Math.max(1, chunk));
  const row = r.reqToToken.row(lr.req.kv.reqPoolIdx);
  evictShortfall(r, seq - pre + ps);
  r.recorder.actor = lr.req.id;
  const out = r.recorder.allocExtend({ prefixLens: [pre], seqLens: [seq], lastLoc: [pre === 0 ? -1 : (row[pre - 1] as number)] });
  if (out === null) {
    checkNullIsShort(m, Math.ceil(seq / ps) - Math.ceil(pre / ps), op);
    return false;
  }
  r.reqToToken.write(lr.req.kv.reqPoolIdx, pre, out);
  lr.req.kv.kvAllocatedLen = lr.req.kv.kvCommittedLen = lr.allocated = lr.committed = seq;
  writeContent(m, r, lr, pre, seq);
  if (seq < lr.promptLen) {
    r.cache.cacheUnfinishedReq(lr.req);
    if (!r.cache.disabled) lr.protectedLen = Math.max(lr.protectedLen, Math.floor(seq / ps) * ps);
    checkRequest(m, r, lr, op, true);
  }
  return true;
}

/**
 * Releases requests the engine's way (finish, over-allocation, row), inside one free group when
 * the geometry says so. On the classic path a cap off the tree page is refused (the Mamba cache's
 * assertion): that call must change nothing, and the request then finishes uncapped.
 */
export function finish(m: PrefixModel, r: PrefixReal, requests: readonly LiveRequest[], capOf: (lr: LiveRequest) => number | null, insert: boolean, op: string): void {
  const caps = requests.map((lr) => {
    const cap = capOf(lr);
    const refused = m.geometry.finishPath === 'classic' && insert && cap !== null && cap < lr.committed && cap % m.pageSize !== 0;
    if (!refused) return cap;
    expectRefused(m, r, lr, `${op}: classic finish with cap ${cap}`, () => r.cache.cacheFinishedReq(lr.req, { capTokens: cap }));
    return null;
  });
  const grouped = m.geometry.groupedFinish;
  if (grouped) r.recorder.freeGroupBegin();
  requests.forEach((lr, i) => {
    r.cache.releaseRequest(lr.req, { capTokens: caps[i] ?? null, insert });
    m.live = m.live.filter((x) => x !== lr);
  });
  if (grouped) r.recorder.freeGroupEnd();
}

/** Appends one generated token to a decoding request's sequence. */
export function generate(lr: LiveRequest): void {
  appendToken(lr, uniqueToken(lr.req.id, lr.tokens.length));
}
