/**
 * Typed errors of `@kvfuzz/allocator-core`.
 *
 * Caller mistakes throw a subclass of {@link KvfuzzError} with a stable `name` and `code`, so a
 * failure survives worker threads and the JSON-lines protocol; broken internal invariants throw
 * {@link InvariantError}. Every message names the offending values.
 *
 * @packageDocumentation
 */

/** Base class of every error kvfuzz raises on purpose. */
export class KvfuzzError extends Error {
  /** Stable machine-readable code, e.g. `KVFUZZ_DOUBLE_FREE`. */
  readonly code: string;

  constructor(name: string, code: string, message: string) {
    super(message);
    this.name = name;
    this.code = code;
  }
}

/** Bad allocator configuration, raised before anything is built. */
export class ConfigError extends KvfuzzError {
  constructor(message: string) {
    super('ConfigError', 'KVFUZZ_CONFIG', message);
  }
}

/** A call argument breaks a rule that holds whether or not checks are on (sizes, lengths, `seq < prefix`). */
export class ArgumentError extends KvfuzzError {
  constructor(message: string) {
    super('ArgumentError', 'KVFUZZ_ARGUMENT', message);
  }
}

/** A page about to be handed out is already held: the free list is corrupt. */
export class DoubleAllocError extends KvfuzzError {
  /** The page ids that were already held. */
  readonly pages: readonly number[];

  constructor(pages: readonly number[]) {
    super('DoubleAllocError', 'KVFUZZ_DOUBLE_ALLOC', `Double-alloc detected: pages already allocated: [${pages.join(', ')}].`);
    this.pages = pages;
  }
}

/** A page given back is not held: reserved page 0, a free page, or a page given back twice. */
export class DoubleFreeError extends KvfuzzError {
  /** The page ids that were not currently allocated. */
  readonly pages: readonly number[];

  constructor(pages: readonly number[]) {
    super('DoubleFreeError', 'KVFUZZ_DOUBLE_FREE', `Double-free detected: pages not currently allocated: [${pages.join(', ')}].`);
    this.pages = pages;
  }
}

/** A slot index outside `[0, (numPages + 1) * pageSize)` or not an integer (checked when checks are on). */
export class SlotRangeError extends KvfuzzError {
  /** The offending slot values. */
  readonly slots: readonly number[];

  constructor(slots: readonly number[], slotEnd: number) {
    super('SlotRangeError', 'KVFUZZ_SLOT_RANGE', `Slots outside [0, ${slotEnd}): [${slots.join(', ')}].`);
    this.slots = slots;
  }
}

/** A `freeSegments` call breaks the page-disjointness contract (unaligned start, shared page, bad row structure). */
export class SegmentError extends KvfuzzError {
  constructor(message: string) {
    super('SegmentError', 'KVFUZZ_SEGMENT', message);
  }
}

/** A `lastLoc` that does not fit its prefix (checked when checks are on). */
export class LastLocError extends KvfuzzError {
  constructor(message: string) {
    super('LastLocError', 'KVFUZZ_LAST_LOC', message);
  }
}

/** Free-group misuse: a nested begin, an end without a begin, or a snapshot taken inside a group. */
export class FreeGroupError extends KvfuzzError {
  constructor(message: string) {
    super('FreeGroupError', 'KVFUZZ_FREE_GROUP', message);
  }
}

/** `restoreState` was given something that is not a snapshot of this allocator's geometry. */
export class StateError extends KvfuzzError {
  constructor(message: string) {
    super('StateError', 'KVFUZZ_STATE', message);
  }
}

/** One of our own invariants broke: a bug in kvfuzz (or in a planted mutant), never a caller error. */
export class InvariantError extends KvfuzzError {
  constructor(message: string) {
    super('InvariantError', 'KVFUZZ_INVARIANT', message);
  }
}
