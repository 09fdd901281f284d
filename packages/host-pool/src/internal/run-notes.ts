/**
 * Where each run of consecutive slots of one call's slots begins: run `r` starts at index
 * `starts[r]` of the call's slots and holds `firsts[r]`, `firsts[r] + 1`, … up to the next run's
 * start (or the call's end). `starts[0]` is 0 once anything was noted. The `slot_used` checks flip
 * a run's flags a word at a time from these notes, never reading the slots again.
 *
 * Who notes: a scan of the call's slots ({@link RunNotes.scan}: free's copy in the release list, a
 * first-fit hand-out where it lies in the free list or else its copy), comparing each slot with the
 * one before it; a hand-out that the run search found is one run, proven consecutive entry by
 * entry ({@link RunNotes.noteOneRun}).
 *
 * Why a scan of its own: the copies are `TypedArray.set` (a memcpy), which a copy loop noting as it
 * goes cannot match. The scan reads four slots a step, the same code for every pool size.
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

  /** @param capacity - the most slots one call holds (so the most runs). */
  constructor(capacity: number) {
    this.starts = new Int32Array(capacity);
    this.firsts = new Int32Array(capacity);
  }

  /** The call's slots are one run, from slot `first`. */
  noteOneRun(first: number): void {
    this.starts[0] = 0;
    this.firsts[0] = first;
    this.runs = 1;
  }

  /**
   * The call's slots are `slots[from, from + n)` (n ≥ 1): notes where each run of consecutive
   * slots begins, as indices from `from`.
   */
  scan(slots: Int32Array, from: number, n: number): void {
    const starts = this.starts;
    const firsts = this.firsts;
    const end = (from + n) | 0;
    const head = slots[from] as number;
    starts[0] = 0;
    firsts[0] = head;
    let runs = 1;
    let next = (head + 1) | 0;
    let i = (from + 1) | 0;
    // Four slots a step, one branch for the four when they continue the run, because V8 checks a
    // typed array's map and bounds at every step and a step of one slot paid that per slot.
    for (; i + 3 < end; i += 4) {
      const a = slots[i] as number;
      const b = slots[i + 1] as number;
      const c = slots[i + 2] as number;
      const d = slots[i + 3] as number;
      if (((a ^ next) | (b ^ ((a + 1) | 0)) | (c ^ ((b + 1) | 0)) | (d ^ ((c + 1) | 0))) !== 0) {
        if (a !== next) runs = this.note(runs, i - from, a);
        if (b !== ((a + 1) | 0)) runs = this.note(runs, i + 1 - from, b);
        if (c !== ((b + 1) | 0)) runs = this.note(runs, i + 2 - from, c);
        if (d !== ((c + 1) | 0)) runs = this.note(runs, i + 3 - from, d);
      }
      next = (d + 1) | 0;
    }
    for (; i < end; i++) {
      const slot = slots[i] as number;
      if (slot !== next) runs = this.note(runs, i - from, slot);
      next = (slot + 1) | 0;
    }
    this.runs = runs;
  }

  /** Run `r` begins at index `at` with slot `first`; returns `r + 1`. */
  private note(r: number, at: number, first: number): number {
    this.starts[r] = at;
    this.firsts[r] = first;
    return r + 1;
  }
}
