import { HostSlotPool } from '../host-slot-pool.js';

/**
 * A {@link HostSlotPool} that tests can look into and corrupt on purpose: the used slots, and a
 * slot pushed back onto the head of the free list (the engine test's way to provoke a double
 * allocation).
 */
export class ProbedHostSlotPool extends HostSlotPool {
  /** The slots whose `slotUsed` flag is set, ascending; `null` when checks are off. */
  usedSlots(): number[] | null {
    if (this.slotUsed === null) return null;
    const slots: number[] = [];
    for (let slot = 0; slot < this.size; slot++) if (this.slotUsed.has(slot)) slots.push(slot);
    return slots;
  }

  /** The runs the last checked call noted (`starts` and `firsts`), as plain arrays; `null` when checks are off. */
  notedRuns(): { starts: number[]; firsts: number[] } | null {
    if (this.notes === null) return null;
    const { starts, firsts, runs } = this.notes;
    return { starts: Array.from(starts.subarray(0, runs)), firsts: Array.from(firsts.subarray(0, runs)) };
  }

  /** Puts `slot` at the head of the free list without touching `slotUsed`. */
  pushFront(slot: number): void {
    this.freeSlots.prepend(Int32Array.of(slot), 0, 1);
  }
}
