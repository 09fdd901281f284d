import { copySlots } from './copy-slots.js';
import type { RunNotes } from './run-notes.js';

/**
 * The chunks given back by `free` and not yet merged into the free list (the engine's
 * `release_slots`), stored flat in release order: chunk `c` is `slots[ends[c − 1], ends[c])`
 * (with `ends[−1] = 0`). Every chunk holds at least one slot, so `chunkCount <= count`.
 *
 * Capacity: like the free list, the buffers sized at construction suffice unless a caller error
 * under checks off gives back more slots than the pool has; only then do they grow.
 *
 * @internal
 */
export class ReleaseList {
  /** `slots[0, count)`: the pending slots, chunk after chunk. */
  slots: Int32Array;
  count = 0;
  /** `ends[0, chunkCount)`: one past the last slot of each chunk in `slots`. */
  ends: Int32Array;
  chunkCount = 0;

  constructor(capacity: number) {
    this.slots = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /** Records a copy of `indices` (at least one slot) as the newest chunk. */
  push(indices: ArrayLike<number>): void {
    const n = indices.length;
    if (this.count + n > this.slots.length) this.grow(this.count + n);
    copySlots(indices, 0, this.slots, this.count, n);
    this.count += n;
    this.ends[this.chunkCount++] = this.count;
  }

  /**
   * Copies the `n` slots of `indices` (at least one) after the last chunk without recording it yet
   * (see {@link commit}), and notes their runs of consecutive slots in `notes`.
   */
  stage(indices: ArrayLike<number>, n: number, notes: RunNotes): void {
    if (this.count + n > this.slots.length) this.grow(this.count + n);
    copySlots(indices, 0, this.slots, this.count, n);
    notes.scan(this.slots, this.count, n);
  }

  /** Records the `n` slots {@link stage} copied as the newest chunk. */
  commit(n: number): void {
    this.count += n;
    this.ends[this.chunkCount++] = this.count;
  }

  clear(): void {
    this.count = 0;
    this.chunkCount = 0;
  }

  /** The list becomes a copy of `slots` chunked at `ends` (as {@link slots} and {@link ends} hold them). */
  assign(slots: Int32Array, ends: Int32Array): void {
    if (slots.length > this.slots.length) this.grow(slots.length);
    this.slots.set(slots, 0);
    this.ends.set(ends, 0);
    this.count = slots.length;
    this.chunkCount = ends.length;
  }

  /** Each chunk as a new array, in release order. */
  chunks(): Int32Array[] {
    const chunks: Int32Array[] = [];
    let start = 0;
    for (let c = 0; c < this.chunkCount; c++) {
      const end = this.ends[c] as number;
      chunks.push(this.slots.slice(start, end));
      start = end;
    }
    return chunks;
  }

  private grow(needed: number): void {
    const size = Math.max(2 * this.slots.length, needed);
    const slots = new Int32Array(size);
    slots.set(this.slots.subarray(0, this.count), 0);
    const ends = new Int32Array(size);
    ends.set(this.ends.subarray(0, this.chunkCount), 0);
    this.slots = slots;
    this.ends = ends;
  }
}
