/**
 * Planted bugs in the host pool's refusals, one mechanism each: every one accepts an input the host
 * pool contract says must be refused (H2, H12, H13) the way a pool without that check does — most
 * of them the way the engine's own bookkeeping does, where torch indexing stands in for a check —
 * or leaves a trace of a call it refused (H9). `pnpm validate --pool host` must name the rule.
 */
import { divFloor } from '@kvfuzz/allocator-core';
import { HostDoubleFreeError, HostSlotPool, type HostSlotPoolConfig } from '@kvfuzz/host-pool';

/**
 * H13: a held slot named twice in one `free` passes the used check and is given back twice, so
 * `availableSize` grows by two (the engine's `slot_used[indices].all()`, then the chunk appended
 * whole). A call naming an unused slot is still refused, by the reference's check.
 */
export class HostPoolRepeatCountsTwice extends HostSlotPool {
  override free(indices: ArrayLike<number>): number {
    const used = this.slotUsed;
    if (used === null || indices.length === 0) return super.free(indices);
    for (let i = 0; i < indices.length; i++) if (!used.has(indices[i] as number)) return super.free(indices);
    for (let i = 0; i < indices.length; i++) used.unset(indices[i] as number);
    this.pending.push(indices);
    return indices.length;
  }
}

/** H13: a negative slot `s` is taken as slot `size + s` (torch's negative indexing: `free([-1])` gives back the last slot). */
export class HostPoolWrapsNegativeSlot extends HostSlotPool {
  override free(indices: ArrayLike<number>): number {
    if (!Array.prototype.some.call(indices, (s: number) => s < 0)) return super.free(indices);
    return super.free(Array.from(indices, (s) => (s < 0 ? s + this.size : s)));
  }
}

/** H13: slots at or past `size` are dropped without a word, and counted as given back. */
export class HostPoolIgnoresSlotPastEnd extends HostSlotPool {
  override free(indices: ArrayLike<number>): number {
    const inside = Array.prototype.filter.call(indices, (s: number) => s < this.size) as number[];
    if (inside.length === indices.length) return super.free(indices);
    super.free(inside);
    return indices.length;
  }
}

/**
 * H12: `alloc` of a negative page multiple hands out all but the last `|n|` free slots (the
 * engine's `free_slots[:n]` after its only check, `n % page_size == 0`, which a negative multiple
 * passes), rounded down to whole pages.
 */
export class HostPoolAcceptsNegativeAlloc extends HostSlotPool {
  override alloc(n: number): Int32Array | null {
    if (!(Number.isInteger(n) && n < 0 && n % this.pageSize === 0)) return super.alloc(n);
    return super.alloc(Math.max(0, divFloor(this.freeSlots.count + n, this.pageSize) * this.pageSize));
  }
}

/** H2: a negative or fractional requested size is truncated to a whole one (the engine's `int(...)`), not refused. */
export class HostPoolTruncatesSize extends HostSlotPool {
  constructor(config: HostSlotPoolConfig) {
    super({ ...config, sizeTokens: Math.max(0, Math.trunc(config.sizeTokens)) });
  }
}

/**
 * H9: a refused `free` leaves the slots it cleared before meeting the bad one cleared: the lists
 * are as before, but those held slots read as given back, so their holder cannot give them back.
 */
export class HostPoolRefusalUnmarks extends HostSlotPool {
  protected override markFreed(indices: ArrayLike<number>): void {
    const used = this.slotUsed;
    if (used === null) return;
    for (let i = 0; i < indices.length; i++) {
      const slot = indices[i] as number;
      if (!used.has(slot)) throw new HostDoubleFreeError([slot]);
      used.unset(slot);
    }
  }
}
