/** A word of slots all flagged, or all not. */
const kFlagged = -1;
const kUnflagged = 0;

/**
 * The engine's `slot_used` flags as one bit per slot: bit `s & 31` of `words[s >>> 5]` is set
 * while slot `s` is allocated.
 *
 * Why bits rather than a byte per slot: a pool hands out and takes back runs of consecutive
 * slots (whole pages, found by the run search), and a run's flags are then a few whole words.
 * Checking and flipping them costs one word operation per 32 slots instead of a byte read and
 * write per slot, which was the whole of the checks' cost. A slot that is not in a run is a run of
 * one.
 *
 * A run is flipped whole or not at all (it is checked first); the methods stop at the first run
 * they refuse, every run before it done.
 *
 * @internal
 */
export class UsedBits {
  readonly words: Int32Array;

  /** @param size - slots flagged: ids `0 .. size − 1`. */
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

  /** The flags become a copy of `words` (a copy of another `UsedBits` of the same size). */
  assign(words: Int32Array): void {
    this.words.set(words, 0);
  }

  /**
   * Flags the `n` slots of a call, given as runs of consecutive slots (as `RunNotes` holds
   * them: run `r` starts at index `starts[r]` with slot `firsts[r]`), a run at a time.
   *
   * @returns `n` when all were flagged; otherwise the index of the first slot of the run that
   *   holds a flagged slot or one outside the pool (slots before it are flagged, the rest untouched).
   */
  setRuns(firsts: Int32Array, starts: Int32Array, runs: number, n: number): number {
    return this.flipRuns(firsts, starts, runs, n, kUnflagged);
  }

  /** {@link setRuns} the other way: unflags the runs while every slot of each is flagged. */
  clearRuns(firsts: Int32Array, starts: Int32Array, runs: number, n: number): number {
    return this.flipRuns(firsts, starts, runs, n, kFlagged);
  }

  private flipRuns(firsts: Int32Array, starts: Int32Array, runs: number, n: number, was: number): number {
    for (let r = 0; r < runs; r++) {
      const at = starts[r] as number;
      const length = (r + 1 < runs ? (starts[r + 1] as number) : n) - at;
      if (!this.flipRange(firsts[r] as number, length, was)) return at;
    }
    return n;
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
    // cross: 0 when the range sits in one word, 1 when it reaches into the next.
    const cross = w1 - w0;
    if (cross <= 1) {
      // Within two words (every range of up to 33 slots), without a branch on the range's shape: a
      // fragmented list hands out thousands of short runs, and a branch on their lengths
      // mispredicted often. Both words are read before either is written; in one word the second
      // mask is empty.
      const two = 0 - cross;
      const m0 = head & (tail | two);
      const m1 = tail & two;
      const x0 = words[w0] as number;
      const x1 = words[w1] as number;
      if ((((x0 ^ was) & m0) | ((x1 ^ was) & m1)) !== 0) return false;
      words[w0] = x0 ^ m0;
      words[w1] = (words[w1] as number) ^ m1;
      return true;
    }
    if (((words[w0] as number) & head) !== (was & head) || ((words[w1] as number) & tail) !== (was & tail)) return false;
    for (let w = w0 + 1; w < w1; w++) if (words[w] !== was) return false;
    for (let w = w0 + 1; w < w1; w++) words[w] = ~was;
    words[w0] = (words[w0] as number) ^ head;
    words[w1] = (words[w1] as number) ^ tail;
    return true;
  }
}
