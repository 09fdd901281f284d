import { sortRange } from './sort-range.js';

/**
 * The free list as a deque of page ids in one Int32Array: the list is `buf[head, head + count)`,
 * handed out from the front. Prepends (LIFO reuse) and appends (FIFO reuse) both work without
 * allocating: the buffer holds twice the capacity, and the contents move to the far end (before a
 * prepend) or to the start (before an append) only when that side is full, so moves are amortized.
 *
 * Invariant: `count <= capacity` (the caller never holds more free pages than exist).
 *
 * Serials: the entry at `buf[i]` has serial `serialBase + i`. Moves keep every entry's serial, so
 * the front's serial (`serialBase + head`) only grows as pages are taken: a FIFO user can tell
 * whether a page it appended has been handed out since by comparing the serial it got with the
 * front's. Serials start at 1 (0 is below every serial).
 *
 * @internal
 */
export class FreeList {
  /** Backing store; readers index it as `buf[head + i]`. */
  buf: Int32Array;
  head = 0;
  count = 0;
  /** The serial of `buf[0]`; see the class comment. */
  serialBase = 1;

  constructor(readonly capacity: number) {
    this.buf = new Int32Array(2 * capacity + 2);
  }

  /** The list becomes `first, first + 1, …, last`. */
  fillAscending(first: number, last: number): void {
    this.head = 0;
    this.count = 0;
    this.serialBase = 1;
    for (let page = first; page <= last; page++) this.buf[this.count++] = page;
  }

  /** The serial of the front entry: every entry handed out so far had a smaller one. */
  frontSerial(): number {
    return this.serialBase + this.head;
  }

  at(i: number): number {
    return this.buf[this.head + i] as number;
  }

  /** Drops the first `n` entries (they were handed out). */
  take(n: number): void {
    this.head += n;
    this.count -= n;
  }

  /**
   * Makes room for `n` entries before the front and returns where the first goes (`buf[at + i]`,
   * serial `serialBase + at + i`, unchanged by the move); they join the list at {@link commitFront}.
   * The caller keeps `count + n <= capacity`.
   */
  reserveFront(n: number): number {
    if (this.head < n) {
      const target = this.buf.length - this.count;
      this.buf.copyWithin(target, this.head, this.head + this.count);
      this.serialBase -= target - this.head;
      this.head = target;
    }
    return this.head - n;
  }

  /** The `n` entries written before the front (see {@link reserveFront}) join the list. */
  commitFront(n: number): void {
    this.head -= n;
    this.count += n;
  }

  /** `src[start, start + n)` goes to the back, keeping its order. */
  append(src: ArrayLike<number>, start: number, n: number): void {
    const tail = this.reserveBack(n);
    for (let i = 0; i < n; i++) this.buf[tail + i] = src[start + i] as number;
    this.count += n;
  }

  /**
   * Makes room for `n` entries after the back and returns where they go (`buf[tail + i]`, serial
   * `serialBase + tail + i`, unchanged by the move); they join the list at {@link commitBack}.
   * The caller keeps `count + n <= capacity`.
   */
  reserveBack(n: number): number {
    if (this.head + this.count + n > this.buf.length) {
      this.buf.copyWithin(0, this.head, this.head + this.count);
      this.serialBase += this.head;
      this.head = 0;
    }
    return this.head + this.count;
  }

  /** The `n` entries written after the back (see {@link reserveBack}) join the list. */
  commitBack(n: number): void {
    this.count += n;
  }

  sortAscending(): void {
    sortRange(this.buf, this.head, this.head + this.count);
  }

  /** The list's contents as a new array (front first). */
  toArray(): Int32Array {
    return this.buf.slice(this.head, this.head + this.count);
  }

  /** Replaces the contents with `pages` (front first). */
  assign(pages: Int32Array): void {
    this.buf.set(pages, 0);
    this.head = 0;
    this.count = pages.length;
    this.serialBase = 1;
  }
}
