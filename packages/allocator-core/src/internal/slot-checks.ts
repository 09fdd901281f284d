/**
 * The fast allocators' refusals of a give-back (checks on): slots outside the pool, and pages
 * that are not held. Both are slow paths, built after the one-pass check has stopped.
 *
 * @internal
 */
import { DoubleFreeError, SlotRangeError } from '../errors.js';
import { assert } from './assert.js';

/** `indices[start, end)` are integer slots of the pool `[0, slotEnd)`; else SlotRangeError naming each that is not. */
export function checkSlots(indices: ArrayLike<number>, start: number, end: number, slotEnd: number): void {
  let bad: number[] | null = null;
  for (let i = start; i < end; i++) {
    const slot = indices[i] as number;
    if (!Number.isInteger(slot) || slot < 0 || slot >= slotEnd) (bad ??= []).push(slot);
  }
  if (bad !== null) throw new SlotRangeError(bad, slotEnd);
}

/** Slow path of a refused free: every slot outside the pool, else every distinct page not held. */
export function refuseFree(indices: ArrayLike<number>, n: number, pageSize: number, slotEnd: number, isHeld: (page: number) => boolean): never {
  checkSlots(indices, 0, n, slotEnd);
  const bad = new Set<number>();
  for (let i = 0; i < n; i++) {
    const page = Math.floor((indices[i] as number) / pageSize);
    if (!isHeld(page)) bad.add(page);
  }
  assert(bad.size > 0, 'a free was refused but every page is held');
  throw new DoubleFreeError([...bad]);
}
