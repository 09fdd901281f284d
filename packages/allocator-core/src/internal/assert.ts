import { InvariantError } from '../errors.js';

/**
 * Throws {@link InvariantError} when `condition` is false. For our own invariants only; caller
 * mistakes throw the typed errors of `errors.ts`.
 *
 * @internal
 */
export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new InvariantError(`Invariant broken: ${message}`);
}
