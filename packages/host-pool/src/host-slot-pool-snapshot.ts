/**
 * A copy of a `HostSlotPool`'s state — the free list, the pending chunks and the `slot_used`
 * flags — taken by `backupState` and put back by `restoreState`. Opaque on purpose: only a pool
 * makes one, so a snapshot is always a state some pool of its geometry was in; `restoreState`
 * checks only that it fits.
 *
 * Why it exists: a bench or a test that repeats an operation from one state (the host pool bench
 * fragments its pool a little more every cycle, and the checks' cost grows with the number of
 * runs of consecutive slots, so a call needs a defined state).
 */
export class HostSlotPoolSnapshot {
  /** @internal */
  constructor(
    /** Slots of the pool it was taken from. */
    readonly size: number,
    readonly pageSize: number,
    readonly checks: boolean,
    /** @internal */ readonly free: Int32Array,
    /** @internal */ readonly pendingSlots: Int32Array,
    /** @internal */ readonly pendingEnds: Int32Array,
    /** @internal */ readonly used: Int32Array | null,
  ) {
    Object.freeze(this);
  }
}
