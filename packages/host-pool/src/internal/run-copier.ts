/**
 * Copies slots and notes, as it goes, where each run of consecutive slots begins: `starts[0,
 * runs)` are indices into everything copied since {@link RunCopier.begin}, and a run goes on
 * across the pieces of one copy (a hand-out reads the free list and then the pending chunks).
 *
 * Why in the copy: the `slot_used` checks flip a run's flags a word at a time, and noting the runs
 * in the loop that copies the slots anyway costs a compare per slot, where a pass of its own read
 * every slot a second time (measured +1 ns a slot at page 512).
 *
 * Runs are counted in int32 arithmetic: 2^31 − 1 runs on into −2^31. Such a run holds −2^31, a
 * slot outside every pool, so the flags refuse it whole, as they must.
 *
 * @internal
 */
export class RunCopier {
  /** `starts[0, runs)`: where each run begins, ascending; `starts[0]` is 0 once anything was copied. */
  readonly starts: Int32Array;
  runs = 0;
  // copied: slots copied since begin(); next: the slot that would continue the current run.
  private copied = 0;
  private next = 0;

  /** @param capacity - the most slots one copy holds. */
  constructor(capacity: number) {
    this.starts = new Int32Array(capacity);
  }

  begin(): void {
    this.runs = 0;
    this.copied = 0;
  }

  /** `src[srcFrom, srcFrom + n)` to `dst[dstFrom, dstFrom + n)`, noting the runs. */
  copy(src: ArrayLike<number>, srcFrom: number, dst: Int32Array, dstFrom: number, n: number): void {
    if (n === 0) return;
    const starts = this.starts;
    const at = this.copied;
    let runs = this.runs;
    let next = this.next;
    let i = 0;
    if (at === 0) {
      // The first slot opens a run, whatever its value.
      const slot = src[srcFrom] as number;
      dst[dstFrom] = slot;
      starts[runs++] = 0;
      next = (slot + 1) | 0;
      i = 1;
    }
    for (; i < n; i++) {
      const slot = src[srcFrom + i] as number;
      dst[dstFrom + i] = slot;
      if (slot !== next) starts[runs++] = at + i;
      next = (slot + 1) | 0;
    }
    this.runs = runs;
    this.next = next;
    this.copied = at + n;
  }
}
