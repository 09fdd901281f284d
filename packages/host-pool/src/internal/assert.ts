import { InvariantError } from '@kvfuzz/allocator-core';

/**
 * Throws {@link InvariantError} when `condition` is false. For our own invariants only; caller
 * mistakes throw typed errors.
 *
 * @internal
 */
export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new InvariantError(`Invariant broken: ${message}`);
}
