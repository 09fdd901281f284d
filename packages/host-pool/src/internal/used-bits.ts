/**
 * The engine's `slot_used` flags as one bit per slot: bit `s & 31` of `words[s >>> 5]` is set
 * while slot `s` is allocated.
 *
 * Why bits rather than a byte per slot: a pool hands out and takes back runs of consecutive
 * slots (whole pages, found by the run search), and a run's flags are then a few whole words.
 * Checking and flipping them costs one word operation per 32 slots instead of a byte read and
 * write per slot, which was the whole of the checks' cost (a byte loop ran +8–20% on the
 * alloc/free cycle at page 512). Slots that do not form a run still go bit by bit.
 *
 * Every method that changes bits either changes all it was asked to or none (it checks first).
 *
 * @internal
 */
/** A word of slots all flagged, or all not. */
const kFlagged = -1;
const kUnflagged = 0;

export class UsedBits {
  readonly words: Int32Array;

  constructor(readonly size: number) {
    this.words = new Int32Array((size + 31) >>> 5);
  }

  /** Whether slot `slot` is flagged; a slot outside `[0, size)` reads as not flagged. */
  has(slot: number): boolean {
    return slot >= 0 && slot < this.size && (((this.words[slot >>> 5] as number) >>> (slot & 31)) & 1) === 1;
  }

  set(slot: number): void {
    this.words[slot >>> 5] = (this.words[slot >>> 5] as number) | (1 << (slot & 31));
  }

  unset(slot: number): void {
    this.words[slot >>> 5] = (this.words[slot >>> 5] as number) & ~(1 << (slot & 31));
  }

  clearAll(): void {
    this.words.fill(0);
  }

  /** Flags slots `[first, first + n)` (n ≥ 1) if none is flagged; false, changing nothing, otherwise. */
  setRangeIfClear(first: number, n: number): boolean {
    return this.flipRange(first, n, kUnflagged);
  }

  /** Unflags slots `[first, first + n)` (n ≥ 1) if all are flagged; false, changing nothing, otherwise. */
  clearRangeIfSet(first: number, n: number): boolean {
    return this.flipRange(first, n, kFlagged);
  }

  /**
   * Flags the slots `src[from, to)`, cut into runs of consecutive slots, a run at a time.
   *
   * @returns `to` when all were flagged; otherwise the index of the first slot of the run that
   *   holds a flagged slot or one outside the pool (slots before it are flagged, the rest untouched).
   */
  setRuns(src: ArrayLike<number>, from: number, to: number): number {
    return this.flipRuns(src, from, to, kUnflagged);
  }

  /** {@link setRuns} the other way: unflags `src[from, to)` run by run while every slot is flagged. */
  clearRuns(src: ArrayLike<number>, from: number, to: number): number {
    return this.flipRuns(src, from, to, kFlagged);
  }

  private flipRuns(src: ArrayLike<number>, from: number, to: number, was: number): number {
    let i = from;
    while (i < to) {
      const first = src[i] as number;
      let j = i + 1;
      while (j < to && src[j] === first + (j - i)) j++;
      if (!this.flipRange(first, j - i, was)) return i;
      i = j;
    }
    return to;
  }

  /**
   * Flips the bits of slots `[first, first + n)` (n ≥ 1) if every one of them is `was` (a word of
   * it: all 0 or all 1), by XOR. A range reaching outside the pool is refused.
   */
  private flipRange(first: number, n: number, was: number): boolean {
    if (!(first >= 0 && first + n <= this.size)) return false;
    const words = this.words;
    const last = first + n - 1;
    const w0 = first >>> 5;
    const w1 = last >>> 5;
    const head = -1 << (first & 31);
    const tail = (-1 >>> (31 - (last & 31))) | 0;
    if (w0 === w1) {
      const m = head & tail;
      if (((words[w0] as number) & m) !== (was & m)) return false;
      words[w0] = (words[w0] as number) ^ m;
      return true;
    }
    if (((words[w0] as number) & head) !== (was & head) || ((words[w1] as number) & tail) !== (was & tail)) return false;
    for (let w = w0 + 1; w < w1; w++) if (words[w] !== was) return false;
    words[w0] = (words[w0] as number) ^ head;
    for (let w = w0 + 1; w < w1; w++) words[w] = ~was;
    words[w1] = (words[w1] as number) ^ tail;
    return true;
  }
}
