/**
 * Unit conversions between slots and pages. A slot is a token index; page `p` covers the
 * half-open slot range `[p * pageSize, (p + 1) * pageSize)`. Every division says how it rounds.
 *
 * @packageDocumentation
 */
import { InvariantError } from './errors.js';

/** `a / b` for non-negative integers, rounded down. */
export function divFloor(a: number, b: number): number {
  return Math.floor(a / b);
}

/** `a / b` for non-negative integers, rounded up. */
export function divCeil(a: number, b: number): number {
  return Math.ceil(a / b);
}

/**
 * `a / b` when `b` divides `a`.
 *
 * @throws InvariantError when there is a remainder.
 */
export function divExact(a: number, b: number): number {
  const q = a / b;
  if (!Number.isInteger(q)) throw new InvariantError(`divExact(${a}, ${b}) has a remainder`);
  return q;
}

/** `n` rounded up to a multiple of `pageSize`. */
export function ceilToPage(n: number, pageSize: number): number {
  return Math.ceil(n / pageSize) * pageSize;
}

/** `n` rounded down to a multiple of `pageSize`. */
export function floorToPage(n: number, pageSize: number): number {
  return Math.floor(n / pageSize) * pageSize;
}

/** The page that holds `slot`. */
export function pageOfSlot(slot: number, pageSize: number): number {
  return Math.floor(slot / pageSize);
}

/** The first slot of `page`. */
export function firstSlotOfPage(page: number, pageSize: number): number {
  return page * pageSize;
}
