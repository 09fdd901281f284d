/**
 * Where each run of consecutive slots of one call's slots begins: run `r` starts at index
 * `starts[r]` of the call's slots and holds `firsts[r]`, `firsts[r] + 1`, … up to the next run's
 * start (or the call's end). `starts[0]` is 0 once anything was noted. The `slot_used` checks flip
 * a run's flags a word at a time from these notes, never reading the slots again.
 *
 * Who notes: the copy a call makes anyway ({@link RunNotes.copy}: free copies its slots into the
 * release list, a first-fit hand-out copies them out of the lists), comparing each slot with the one
 * before it; a hand-out that the run search found is one run, proven consecutive entry by entry
 * ({@link RunNotes.noteOneRun}).
 *
 * Why in the copy: noting in the loop that copies the slots anyway costs a compare per slot, where a
 * pass of its own read every slot a second time (measured +1 ns a slot at page 512).
 *
 * Runs are counted in int32 arithmetic: 2^31 − 1 runs on into −2^31. Such a run holds −2^31, a
 * slot outside every pool, so the flags refuse it whole, as they must.
 *
 * @internal
 */
export class RunNotes {
  /** `starts[0, runs)`: where each run begins in the call's slots, ascending. */
  readonly starts: Int32Array;
  /** `firsts[0, runs)`: each run's first slot. */
  readonly firsts: Int32Array;
  runs = 0;
  // copied: slots copied since begin(); next: the slot that would continue the current run.
  private copied = 0;
  private next = 0;

  /** @param capacity - the most slots one call holds (so the most runs). */
  constructor(capacity: number) {
    this.starts = new Int32Array(capacity);
    this.firsts = new Int32Array(capacity);
  }

  /** Forgets the last call's runs; the copies that follow are pieces of one call's slots. */
  begin(): void {
    this.runs = 0;
    this.copied = 0;
  }

  /** The call's slots are one run, from slot `first`. */
  noteOneRun(first: number): void {
    this.starts[0] = 0;
    this.firsts[0] = first;
    this.runs = 1;
  }

  /** `src[srcFrom, srcFrom + n)` to `dst[dstFrom, dstFrom + n)`, noting its runs; a run goes on across pieces. */
  copy(src: ArrayLike<number>, srcFrom: number, dst: Int32Array, dstFrom: number, n: number): void {
    if (n === 0) return;
    const starts = this.starts;
    const firsts = this.firsts;
    const at = this.copied;
    let runs = this.runs;
    let next = this.next;
    let i = 0;
    if (at === 0) {
      // The first slot opens a run, whatever its value.
      const slot = src[srcFrom] as number;
      dst[dstFrom] = slot;
      starts[0] = 0;
      firsts[0] = slot;
      runs = 1;
      next = (slot + 1) | 0;
      i = 1;
    }
    for (; i < n; i++) {
      const slot = src[srcFrom + i] as number;
      dst[dstFrom + i] = slot;
      if (slot !== next) {
        starts[runs] = at + i;
        firsts[runs] = slot;
        runs++;
      }
      next = (slot + 1) | 0;
    }
    this.runs = runs;
    this.next = next;
    this.copied = at + n;
  }
}
