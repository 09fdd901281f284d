import { LedgerViolation } from '../ledger/ledger-violation.js';
import { inertLine } from '../text/inert-text.js';
import type { BridgeReply } from './process-bridge.js';

/** Smallest and largest int32: slot ids must fit the Int32Array results the contract names. */
const kInt32Min = -(2 ** 31);
const kInt32Max = 2 ** 31 - 1;
/** Characters of a provider's description or value shown in a violation. */
const kShownCharsMax = 120;

/** A value from a reply, shown briefly and inertly in a violation. */
function show(value: unknown): string {
  return inertLine(JSON.stringify(value) ?? 'undefined', kShownCharsMax);
}

/**
 * A well-formed reply whose result breaks the contract by its type: the module host's `returned`
 * field (what the module returned, in words) and `geometry` field (a new allocator's or pool's
 * size it could not read as a number) are violations, raised here.
 *
 * @throws LedgerViolation `return-type` for a `returned` field, `geometry` for a `geometry` field.
 */
export function checkReturned(reply: BridgeReply, op: string): void {
  const returned = reply['returned'];
  if (returned !== undefined) throw new LedgerViolation('return-type', `${op} returned ${typeof returned === 'string' ? inertLine(returned, kShownCharsMax) : show(returned)}, not what the contract names`);
  const geometry = reply['geometry'];
  if (geometry !== undefined) throw new LedgerViolation('geometry', `${op} returned ${typeof geometry === 'string' ? inertLine(geometry, kShownCharsMax) : show(geometry)}`);
}

/**
 * The slots of an allocation reply: `null`, or an array of integers in int32 range (checked here,
 * as `Int32Array.from` would silently wrap them).
 *
 * @throws LedgerViolation `return-type` for a wrong type; `index-int32` for an entry that is not an int32.
 */
export function slotsOfReply(reply: BridgeReply, op: string): Int32Array | null {
  checkReturned(reply, op);
  const indices = reply['indices'];
  if (indices === null) return null;
  if (!Array.isArray(indices)) throw new LedgerViolation('return-type', `${op} replied "indices": ${show(indices)}, not an array or null`);
  const out = new Int32Array(indices.length);
  for (let i = 0; i < indices.length; i++) {
    const slot: unknown = indices[i];
    if (typeof slot !== 'number' || !Number.isInteger(slot) || slot < kInt32Min || slot > kInt32Max) {
      throw new LedgerViolation('index-int32', `${op} returned ${show(slot)} at position ${i}, not an integer in int32 range`);
    }
    out[i] = slot;
  }
  return out;
}

/**
 * An integer result (`availableSize`'s `value`, a host `free`'s `count`).
 *
 * @throws LedgerViolation `return-type` when it is missing or not an integer.
 */
export function integerOfReply(reply: BridgeReply, field: string, op: string): number {
  checkReturned(reply, op);
  const value = reply[field];
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new LedgerViolation('return-type', `${op} replied "${field}": ${show(value)}, not an integer`);
  return value;
}

/** A number field of a `create`/`createHost` reply, as it came (the model compares it with the configuration). */
export function numberOfReply(reply: BridgeReply, field: string, op: string): number {
  const value = reply[field];
  if (typeof value !== 'number') throw new LedgerViolation('return-type', `${op} replied "${field}": ${show(value)}, not a number`);
  return value;
}
