/**
 * The model's live requests and the ones the running command touched: commands pick, add and
 * remove requests here, so the check after a command knows which rows to read.
 */
import type { LiveRequest, PrefixModel } from './prefix-model-state.js';

/** Marks a live request as one the running command works on: the check after it reads its row. */
export function touch(m: PrefixModel, lr: LiveRequest): void {
  m.touched.add(lr);
}

/** The `pick`-th live request (among those `where` accepts), touched by the running command. */
export function liveAt(m: PrefixModel, pick: number, where?: (lr: LiveRequest) => boolean): LiveRequest | null {
  const lr = pickLive(m, pick, where);
  if (lr !== null) touch(m, lr);
  return lr;
}

function pickLive(m: PrefixModel, pick: number, where?: (lr: LiveRequest) => boolean): LiveRequest | null {
  if (where === undefined) return m.live.length === 0 ? null : (m.live[pick % m.live.length] as LiveRequest);
  let count = 0;
  for (const lr of m.live) if (where(lr)) count++;
  if (count === 0) return null;
  let k = pick % count;
  for (const lr of m.live) if (where(lr) && k-- === 0) return lr;
  return null;
}

/** A request joins the live set, touched by the running command. */
export function addLive(m: PrefixModel, lr: LiveRequest): void {
  m.live.push(lr);
  touch(m, lr);
}

/** Takes a request out of the live set (it finished): its row references nothing any more. */
export function removeLive(m: PrefixModel, lr: LiveRequest): void {
  const i = m.live.indexOf(lr);
  if (i >= 0) m.live.splice(i, 1);
  m.touched.delete(lr);
  m.references.drop(lr.req.id);
}

/** Every request gone at once: the caches and the rows were cleared. */
export function clearLive(m: PrefixModel): void {
  m.live = [];
  m.touched.clear();
  m.references.clear();
}

export const inPrefill = (lr: LiveRequest): boolean => lr.allocated < lr.promptLen;
export const inDecode = (lr: LiveRequest): boolean => lr.allocated >= lr.promptLen;
