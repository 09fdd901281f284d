/**
 * The scheduler steps the lifecycle commands share: admit a request (match, lock, write the row),
 * run a prefill chunk, finish a request. Each checks what it can right where it happens.
 */
import { newReqKvInfo, type Req } from '@kvfuzz/prefix-cache';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import type { OpLabel } from '../../../ledger/op-label.js';
import type { LiveRequest, PrefixModel, PrefixReal } from '../prefix-model-state.js';
import { addLive, removeLive } from '../live-set.js';
import { appendToken, checkNullIsShort, checkRequest, evictShortfall, expectRefused, writeContent } from '../prefix-model-io.js';
import { promptOf, seedHash, uniqueToken } from '../prompts.js';
import type { PromptShape } from './prompt-shape.js';

/** Admits a request: match its prompt (all but the last token), lock the match, write the row. Null when no row is free. */
export function admitRequest(m: PrefixModel, r: PrefixReal, shape: PromptShape, op: OpLabel): LiveRequest | null {
  const rowIdx = r.reqToToken.alloc();
  if (rowIdx === null) return null;
  const id = m.nextId++;
  const promptLen = shape.shared + Math.max(1, shape.own);
  const hashSeed = seedHash(shape.extraKey);
  const { tokens, prefixHash } = promptOf(shape.prefix, shape.shared, promptLen, id, hashSeed);
  const match = r.cache.matchPrefix(tokens.slice(0, promptLen - 1), shape.extraKey);
  const matched = match.indices.length;
  if (matched % m.pageSize !== 0 || matched > promptLen - 1) {
    throw new LedgerViolation('match-length', `${op}: matchPrefix returned ${matched} tokens for a ${promptLen - 1}-token key (page ${m.pageSize})`);
  }
  r.cache.lock(match.lastNode);
  r.reqToToken.write(rowIdx, 0, match.indices);
  const req: Req = { id, tokens, extraKey: shape.extraKey, kv: newReqKvInfo(rowIdx, matched), lastNode: match.lastNode };
  const lr: LiveRequest = { req, tokens, prefixHash, promptLen, hashSeed, committed: matched, allocated: matched, protectedLen: matched };
  addLive(m, lr);
  checkRequest(m, r, lr, op, true);
  return lr;
}

/**
 * One prefill chunk of up to `chunk` tokens; a chunk that does not finish the prompt is cached
 * (`cacheUnfinishedReq`). Returns false when the pool was short (the request waits).
 */
export function prefillChunk(m: PrefixModel, r: PrefixReal, lr: LiveRequest, chunk: number, op: OpLabel): boolean {
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
export function finishRequests(m: PrefixModel, r: PrefixReal, requests: readonly LiveRequest[], capOf: (lr: LiveRequest) => number | null, insert: boolean, op: OpLabel): void {
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
    removeLive(m, lr);
  });
  if (grouped) r.recorder.freeGroupEnd();
}

/** Appends one generated token to a decoding request's sequence. */
export function generate(lr: LiveRequest): void {
  appendToken(lr, uniqueToken(lr.req.id, lr.tokens.length));
}
