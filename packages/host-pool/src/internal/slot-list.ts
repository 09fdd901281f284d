import { copySlots } from './copy-slots.js';

/**
 * The host free list: slot ids in one Int32Array, the list being `buf[head, head + count)`,
 * handed out from the front. Runs are taken from anywhere in the list (the contiguous-run
 * preference), by moving the shorter side over the gap, so the order of what stays is kept.
 *
 * Capacity: the pool never holds more free slots than it has slots, so the buffer sized at
 * construction suffices; it grows only when a caller error under checks off (a slot given back
 * twice) or a test that corrupts the list on purpose pushes it past that.
 *
 * @internal
 */
export class SlotList {
  /** Backing store; readers index it as `buf[head + i]`. */
  buf: Int32Array;
  head = 0;
  count = 0;

  constructor(capacity: number) {
    this.buf = new Int32Array(capacity);
  }

  /** The list becomes `0, 1, …, n − 1`. */
  fillAscending(n: number): void {
    if (n > this.buf.length) this.buf = new Int32Array(n);
    this.head = 0;
    this.count = n;
    for (let slot = 0; slot < n; slot++) this.buf[slot] = slot;
  }

  at(i: number): number {
    return this.buf[this.head + i] as number;
  }

  /** Copies entries `[offset, offset + n)` into `out` and removes them, keeping the order of the rest. */
  takeRange(offset: number, n: number, out: Int32Array): void {
    const start = this.head + offset;
    copySlots(this.buf, start, out, 0, n);
    this.removeRange(offset, n);
  }

  /** Removes entries `[offset, offset + n)`, keeping the order of the rest. */
  removeRange(offset: number, n: number): void {
    const start = this.head + offset;
    const after = this.count - offset - n;
    if (offset <= after) {
      // The entries before the run move forward over it.
      this.buf.copyWithin(this.head + n, this.head, start);
      this.head += n;
    } else {
      // The entries after the run move back over it.
      this.buf.copyWithin(start, start + n, this.head + this.count);
    }
    this.count -= n;
  }

  /** `src[start, start + n)` goes to the back, keeping its order. */
  append(src: Int32Array, start: number, n: number): void {
    if (this.head + this.count + n > this.buf.length) {
      if (this.count + n > this.buf.length) this.grow(this.count + n);
      this.buf.copyWithin(0, this.head, this.head + this.count);
      this.head = 0;
    }
    copySlots(src, start, this.buf, this.head + this.count, n);
    this.count += n;
  }

  /** `src[start, start + n)` goes to the front, keeping its order. */
  prepend(src: Int32Array, start: number, n: number): void {
    if (this.head < n) {
      if (this.count + n > this.buf.length) this.grow(this.count + n);
      const target = this.buf.length - this.count;
      this.buf.copyWithin(target, this.head, this.head + this.count);
      this.head = target;
    }
    this.head -= n;
    for (let i = 0; i < n; i++) this.buf[this.head + i] = src[start + i] as number;
    this.count += n;
  }

  /** The list's contents as a new array (front first). */
  toArray(): Int32Array {
    return this.buf.slice(this.head, this.head + this.count);
  }

  /** The list becomes a copy of `entries`, from the buffer's start. */
  assign(entries: Int32Array): void {
    if (entries.length > this.buf.length) this.buf = new Int32Array(entries.length);
    this.buf.set(entries, 0);
    this.head = 0;
    this.count = entries.length;
  }

  /** A larger buffer holding at least `needed` entries, the contents moved to its start. */
  private grow(needed: number): void {
    const grown = new Int32Array(Math.max(2 * this.buf.length, needed));
    grown.set(this.buf.subarray(this.head, this.head + this.count), 0);
    this.buf = grown;
    this.head = 0;
  }
}
