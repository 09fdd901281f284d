/**
 * The ArgumentErrors of `alloc`, `allocExtend` and `allocDecode`, built out of line: the entry
 * points and their validation loops stay small enough for V8 to inline them with the planners.
 * V8 inlines a call tree up to a bytecode budget, and the messages' template literals took a large
 * share of it: with them in line, the checked variants ran out of budget where the unchecked ones
 * did not, and the two modes were compiled apart.
 *
 * @internal
 */
import { ArgumentError } from '../errors.js';

/** Throws the ArgumentError for an `alloc` size that is negative, not an integer or not a page multiple. */
export function refuseAllocSize(needSize: number, pageSize: number): never {
  if (!Number.isInteger(needSize) || needSize < 0) throw new ArgumentError(`alloc size ${String(needSize)} is not a non-negative integer`);
  throw new ArgumentError(`alloc size ${needSize} is not a multiple of the page size ${pageSize}`);
}

/** Throws the ArgumentError for a decode request that breaks a rule of `validateDecode`. */
export function refuseDecodeRequest(i: number, seq: number, last: number): never {
  if (!Number.isInteger(seq) || seq < 1) throw new ArgumentError(`request ${i}: seqLens ${String(seq)} is not an integer >= 1`);
  throw new ArgumentError(`request ${i}: lastLoc ${String(last)} is not a 32-bit integer`);
}

/** Throws the ArgumentError for an extend request that breaks a rule of `validateExtend`. */
export function refuseExtendRequest(i: number, pre: number, seq: number, last: number): never {
  if (!Number.isInteger(pre) || pre < 0) throw new ArgumentError(`request ${i}: prefixLens ${String(pre)} is not a non-negative integer`);
  if (!Number.isInteger(seq) || seq < 0) throw new ArgumentError(`request ${i}: seqLens ${String(seq)} is not a non-negative integer`);
  if (seq < pre) throw new ArgumentError(`request ${i}: seqLens ${seq} < prefixLens ${pre}`);
  throw new ArgumentError(`request ${i}: lastLoc ${String(last)} is not a 32-bit integer`);
}

/** Throws the ArgumentError for extend batch arrays of different lengths. */
export function refuseExtendLengths(prefixLens: number, seqLens: number, lastLoc: number): never {
  throw new ArgumentError(`extend batch arrays differ in length: prefixLens ${prefixLens}, seqLens ${seqLens}, lastLoc ${lastLoc}`);
}

/** Throws the ArgumentError for decode batch arrays of different lengths. */
export function refuseDecodeLengths(seqLens: number, lastLoc: number): never {
  throw new ArgumentError(`decode batch arrays differ in length: seqLens ${seqLens}, lastLoc ${lastLoc}`);
}
