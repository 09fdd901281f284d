import { LedgerViolation } from '../../ledger/ledger-violation.js';
import type { OpLabel } from '../../ledger/op-label.js';
import type { LiveRequest, PrefixModel, PrefixReal } from './prefix-model-state.js';
import { withoutStacks } from '../allocator/model-io.js';
import { touch } from './live-set.js';
import { extendHash } from './prompts.js';

/** Appends a token the request computed at the next position (its id and its content hash). */
export function appendToken(lr: LiveRequest, token: number): void {
  const last = lr.prefixHash[lr.prefixHash.length - 1];
  lr.tokens.push(token);
  lr.prefixHash.push(extendHash(last ?? lr.hashSeed, token));
}

/** Records that row positions `[from, to)` were computed: their slots now hold those positions' KV. */
export function writeContent(m: PrefixModel, r: PrefixReal, lr: LiveRequest, from: number, to: number): void {
  const row = r.reqToToken.row(lr.req.kv.reqPoolIdx);
  const content = m.slotContent;
  for (let pos = from; pos < to; pos++) content.set(row[pos] as number, lr.prefixHash[pos] as number);
}

/**
 * The scheduler's `evict_from_tree_cache`: evict the shortfall when fewer than `needTokens` slots are free.
 */
export function evictShortfall(r: PrefixReal, needTokens: number): void {
  const available = r.allocator.availableSize();
  if (available < needTokens) r.cache.evict(needTokens - available);
}

/** A null allocation is allowed only when the pool (after eviction) really is short. */
export function checkNullIsShort(m: PrefixModel, pagesNeeded: number, op: OpLabel): void {
  if (pagesNeeded <= m.ledger.freePageCount) {
    throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} pages free, ${pagesNeeded} needed`);
  }
}

/**
 * Checks one live request against the oracle: its record agrees with what the model drove, its
 * row keeps the page structure, every page it references is held (no use after free), and the
 * slots of its computed positions still hold its content (a match never hands out stale KV).
 * `everyPosition` checks each position; otherwise the first and last of each page block, so the
 * check after every command is O(blocks), not O(tokens).
 */
export function checkRequest(m: PrefixModel, r: PrefixReal, lr: LiveRequest, op: OpLabel, everyPosition: boolean): void {
  const ps = m.pageSize;
  const kv = lr.req.kv;
  const id = lr.req.id;
  if (kv.kvCommittedLen !== lr.committed || kv.kvAllocatedLen !== lr.allocated || kv.cacheProtectedLen !== lr.protectedLen) {
    throw new LedgerViolation(
      'request-state',
      `after ${op}: request #${id} has committed ${kv.kvCommittedLen}, allocated ${kv.kvAllocatedLen}, protected ${kv.cacheProtectedLen}; ` +
        `the model expects ${lr.committed}, ${lr.allocated}, ${lr.protectedLen}`,
    );
  }
  if (kv.swaEvictedSeqlen % ps !== 0 || kv.swaEvictedSeqlen > kv.kvCommittedLen) {
    throw new LedgerViolation('swa-floor', `after ${op}: request #${id} has SWA floor ${kv.swaEvictedSeqlen}, not on the allocator page ${ps} or past committed ${kv.kvCommittedLen}`);
  }
  const row = r.reqToToken.row(kv.reqPoolIdx);
  for (let blockStart = 0; blockStart < lr.allocated; blockStart += ps) {
    const blockEnd = Math.min(blockStart + ps, lr.allocated);
    const page = Math.floor((row[blockStart] as number) / ps);
    // Position pos of this block belongs in slot page × ps + (pos − blockStart).
    const slotOfPos = page * ps - blockStart;
    if (everyPosition) {
      for (let pos = blockStart; pos < blockEnd; pos++) checkPosition(m, lr, row, pos, slotOfPos, page, op);
    } else {
      checkPosition(m, lr, row, blockStart, slotOfPos, page, op);
      checkPosition(m, lr, row, blockEnd - 1, slotOfPos, page, op);
    }
    if (m.ledger.holderOf(page) < 0) {
      throw new LedgerViolation('use-after-free', `after ${op}: request #${id} row positions [${blockStart}, ${blockEnd}) reference page ${page}, which is free`);
    }
  }
}

/** One row position of a live request: on its block's page at its offset, and (once computed) holding its content. */
function checkPosition(m: PrefixModel, lr: LiveRequest, row: Int32Array, pos: number, slotOfPos: number, page: number, op: OpLabel): void {
  const slot = row[pos] as number;
  if (slot < 0 || slot !== slotOfPos + pos) {
    throw new LedgerViolation('row-structure', `after ${op}: request #${lr.req.id} row position ${pos} holds slot ${slot}, breaking the page structure (block page ${page})`);
  }
  if (pos < lr.committed && m.slotContent.get(slot) !== lr.prefixHash[pos]) {
    throw new LedgerViolation('stale-kv', `after ${op}: request #${lr.req.id} row position ${pos} points at slot ${slot}, which holds other KV (a stale or foreign page)`);
  }
}

/**
 * The checks after every command, O(what it touched): conservation, each request the command
 * touched (O(blocks) each), every page it gave back against the rows that still reference it, the
 * row pool, and the checks of a model built on this one.
 */
export function afterPrefixCommand(m: PrefixModel, r: PrefixReal, op: OpLabel): void {
  m.executed++;
  verifyTouched(m, r, op, false);
}

/**
 * The checks at a quiet point (the start and end of the drain): every live request, and with
 * `wholeStructure` the reference's own tree check, which walks every token held. The backstop
 * for a bug that changes a row no command touched.
 */
export function verifyPrefixQuiet(m: PrefixModel, r: PrefixReal, op: OpLabel, wholeStructure = false): void {
  for (const lr of m.live) touch(m, lr);
  verifyTouched(m, r, op, wholeStructure);
  if (wholeStructure && r.selfCheck) r.cache.tree.verifyInvariants();
}

function verifyTouched(m: PrefixModel, r: PrefixReal, op: OpLabel, wholeStructure: boolean): void {
  const expectAvail = m.ledger.freePageCount * m.pageSize;
  const avail = r.allocator.availableSize();
  if (avail !== expectAvail) {
    throw new LedgerViolation('available-size', `after ${op}: availableSize() = ${avail}, but the ledger has ${m.ledger.freePageCount} free pages × ${m.pageSize} = ${expectAvail}`);
  }
  // The touched rows may have changed for good reason; every other row still references what it did.
  for (const lr of m.touched) m.references.drop(lr.req.id);
  for (const page of m.ledger.takeReleased()) {
    if (m.references.referrersOf(page) > 0) {
      const holder = m.live.find((lr) => m.references.references(lr.req.id, page));
      throw new LedgerViolation('use-after-free', `after ${op}: page ${page} was given back while request #${holder?.req.id} still references it`);
    }
  }
  for (const lr of m.touched) {
    checkRequest(m, r, lr, op, false);
    m.references.set(lr.req.id, r.reqToToken.row(lr.req.kv.reqPoolIdx), lr.allocated);
  }
  m.touched.clear();
  const rowsLive = r.reqToToken.rowCount - r.reqToToken.availableRows();
  if (rowsLive !== m.live.length) throw new LedgerViolation('rows', `after ${op}: ${rowsLive} rows are live for ${m.live.length} live requests`);
  r.extraChecks?.(op, wholeStructure);
}

/** A call that must throw and change nothing: the pool, the request's record and row. */
export function expectRefused(m: PrefixModel, r: PrefixReal, lr: LiveRequest, op: OpLabel, call: () => void): void {
  const availBefore = r.allocator.availableSize();
  const kvBefore = { ...lr.req.kv };
  const rowBefore = r.reqToToken.row(lr.req.kv.reqPoolIdx).slice(0, lr.allocated);
  let threw = false;
  try {
    withoutStacks(call);
  } catch {
    threw = true;
  }
  if (!threw) throw new LedgerViolation('accepted-bad-input', `${op} must be refused, but the cache accepted it`);
  const rowAfter = r.reqToToken.row(lr.req.kv.reqPoolIdx).slice(0, lr.allocated);
  if (r.allocator.availableSize() !== availBefore || JSON.stringify(lr.req.kv) !== JSON.stringify(kvBefore) || rowAfter.some((s, i) => s !== rowBefore[i])) {
    throw new LedgerViolation('rejected-changed-state', `${op} was refused but changed the pool, the request's record or its row`);
  }
  checkRequest(m, r, lr, op, false);
}
