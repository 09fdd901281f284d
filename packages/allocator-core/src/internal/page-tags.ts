/**
 * Page states by serial, the fast allocators' in-line checks (checks on). A page given back gets
 * the serial of the place it takes in the free list ({@link FreeList} serials survive the list's
 * moves), so a page is free exactly when its tag names a place inside the list that holds that
 * page. Handing pages out moves the list's front past them and writes no tag at all; a free reads
 * each page's tag and the list entry it names. Staged, queued and reserved pages carry the
 * negative tags below; any other tag — {@link kTagHeld}, or the stale serial of a place the page
 * has left — is a held page. A page cannot be handed out twice without having been put in the
 * list twice, which every checked way in refuses; the ledger covers the rest.
 *
 * Checks off, the same array holds call stamps instead (see {@link kStampMax}).
 *
 * @internal
 */
import { kPageFree, kPageHeld, kPageQueued, kPageReserved } from './snapshot.js';
import type { FreeList } from './free-list.js';

export const kTagHeld = 0;
export const kTagStaged = -1;
export const kTagQueued = -2;
export const kTagReserved = -3;

/** Serials start again from 1 before the list's last serial passes this, so `serial + pageCount` stays an int32. */
export const kSerialMax = 2 ** 30;

/** Call stamps (of a free, a group, a checked call's dedupe) are positive int32s; at this one they start again from 1. */
export const kStampMax = 0x7fffffff;

/**
 * Whether page `page`, whose serial is `t`, sits at the place that serial names among the places
 * with serials `[listedLo, listedHi)` of a free list's buffer (`buf[t − serialBase]`): inside the
 * list for its front and back, or a stretch a caller wrote before the front.
 */
export function isListed(page: number, t: number, buf: Int32Array, serialBase: number, listedLo: number, listedHi: number): boolean {
  return t >= listedLo && t < listedHi && buf[t - serialBase] === page;
}

/** Page `page`'s state from its tag `t` (`undefined` — outside the pool — reads as free). */
export function stateOfTag(page: number, t: number | undefined, freeList: FreeList): number {
  if (t === undefined || t === kTagStaged) return kPageFree;
  if (t === kTagQueued) return kPageQueued;
  if (t === kTagReserved) return kPageReserved;
  const { buf, head, count, serialBase } = freeList;
  return isListed(page, t, buf, serialBase, serialBase + head, serialBase + head + count) ? kPageFree : kPageHeld;
}

/** How a renumbering reads and writes tags (the token allocator stores them less the page id). */
export interface TagAccess {
  tagOf(page: number): number;
  setTag(page: number, value: number): void;
}

/** Each free-list page gets the serial of its place. */
export function numberFreeList(freeList: FreeList, tags: TagAccess): void {
  const { buf, head, count } = freeList;
  const front = freeList.frontSerial();
  for (let i = 0; i < count; i++) tags.setTag(buf[head + i] as number, front + i);
}

/**
 * Every tag from the lists, O(numPages): free-list pages their serials, staged pages staged, page
 * 0 reserved, queued pages kept, the rest held. The list moves to the start of its buffer and its
 * front's serial starts above every page that can be held: a LIFO free numbers its pages below the
 * front, and the paged checked free takes its fast path only while they stay ≥ 1.
 */
export function renumberTags(freeList: FreeList, numPages: number, staged: Int32Array, stagedCount: number, tags: TagAccess): void {
  freeList.assign(freeList.toArray());
  freeList.serialBase = numPages + 1;
  for (let page = 1; page <= numPages; page++) if (tags.tagOf(page) !== kTagQueued) tags.setTag(page, kTagHeld);
  tags.setTag(0, kTagReserved);
  numberFreeList(freeList, tags);
  for (let i = 0; i < stagedCount; i++) tags.setTag(staged[i] as number, kTagStaged);
}
