/**
 * The `lastLoc` rule of the fast allocators (checks on, CONTRACT.md A25) as a pass of its own:
 * the exact check behind the fused forms of `checked-plans.ts`, which name no request.
 *
 * @internal
 */
import { LastLocError } from '../errors.js';
import { assert } from './assert.js';

/**
 * `lastLoc` is the slot of row position `held - 1`: −1 for an empty row, else a slot with
 * `(lastLoc + 1) % pageSize == held % pageSize` (whether its page is held is the ledger's to check).
 */
export function lastLocFits(held: number, lastLoc: number, pageSize: number): boolean {
  if (held === 0) return lastLoc === -1;
  return (lastLoc + 1 - held) % pageSize === 0;
}

/** Throws `LastLocError` saying why request `request`'s lastLoc does not fit. */
function refuseLastLoc(request: number, held: number, lastLoc: number, heldName: string, pageSize: number): never {
  const ps = pageSize;
  if (held === 0) throw new LastLocError(`request ${request}: lastLoc ${lastLoc} must be -1 when ${heldName} is 0`);
  const lastMod = (((lastLoc + 1) % ps) + ps) % ps;
  assert(lastMod !== held % ps, `request ${request}: lastLoc ${lastLoc} for ${heldName} ${held} was refused but fits`);
  throw new LastLocError(`request ${request}: lastLoc ${lastLoc} does not fit ${heldName} ${held}: (lastLoc + 1) % ${ps} = ${lastMod}, ${heldName} % ${ps} = ${held % ps}`);
}

/**
 * Request `i` holds `lengths[i] − lengthOffset` tokens (the prefix, or `seq − 1` for a decode).
 *
 * @throws LastLocError for the first request whose lastLoc does not fit.
 */
export function verifyLastLocs(lengths: ArrayLike<number>, lastLoc: ArrayLike<number>, lengthOffset: number, heldName: string, pageSize: number): void {
  for (let i = 0; i < lengths.length; i++) {
    const held = (lengths[i] as number) - lengthOffset;
    const last = lastLoc[i] as number;
    if (!lastLocFits(held, last, pageSize)) refuseLastLoc(i, held, last, heldName, pageSize);
  }
}

/** {@link verifyLastLocs} for a decode batch, whose requests hold `seq − 1` tokens. */
export function verifyDecodeLastLocs(seqLens: ArrayLike<number>, lastLoc: ArrayLike<number>, pageSize: number): void {
  verifyLastLocs(seqLens, lastLoc, 1, 'seqLens - 1', pageSize);
}
