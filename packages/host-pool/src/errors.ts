/**
 * Typed errors of `@kvfuzz/host-pool`.
 *
 * The host pool reuses `@kvfuzz/allocator-core`'s {@link KvfuzzError} family: `ConfigError` for a
 * bad configuration, `ArgumentError` for a bad call argument, `SlotRangeError` for a slot outside
 * the pool and `InvariantError` for our own broken invariants. The two classes here carry the
 * engine's `slot_used` messages word for word, with a stable `name` and `code` each.
 *
 * @packageDocumentation
 */
import { KvfuzzError } from '@kvfuzz/allocator-core';

/** Host slots about to be handed out are already allocated: the host free list is corrupt. */
export class HostDoubleAllocError extends KvfuzzError {
  /** The slots that were already allocated, in hand-out order. */
  readonly slots: readonly number[];

  constructor(slots: readonly number[]) {
    super('HostDoubleAllocError', 'KVFUZZ_HOST_DOUBLE_ALLOC', `Double-alloc detected: slots already allocated: [${slots.join(', ')}].`);
    this.slots = slots;
  }
}

/** Host slots given back are not allocated: never handed out, already given back, or named twice in one call. */
export class HostDoubleFreeError extends KvfuzzError {
  /**
   * The offending slots, in call order. A slot named twice in one call is freed twice, so a held
   * slot named twice is listed once (its second naming) and a free slot named twice is listed twice.
   */
  readonly slots: readonly number[];

  constructor(slots: readonly number[]) {
    super('HostDoubleFreeError', 'KVFUZZ_HOST_DOUBLE_FREE', `Double-free detected: slots not currently allocated: [${slots.join(', ')}].`);
    this.slots = slots;
  }
}
