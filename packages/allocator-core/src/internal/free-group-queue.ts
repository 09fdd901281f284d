import { kStampMax } from './page-tags.js';

/**
 * What an open free group holds until its end, for the fast allocators: the pages of its plain
 * frees, each once (the engine releases them as one deduplicated free), and the page
 * representatives of its segment frees, as queued (the engine releases them as they are). Both
 * are copies, taken at the call (CONTRACT.md A13).
 *
 * @internal
 */
export class FreeGroupQueue {
  // plain[0, plainCount): pages of plain frees queued in the open group, each once.
  readonly plain: Int32Array;
  plainCount = 0;
  // seen[p] === stamp once page p is in plain (the group's dedupe, cleared by a new stamp).
  private readonly seen: Int32Array;
  private stamp = 0;
  // reps[0, repsCount): segment representatives, not deduplicated. Grows only past numPages
  // entries, which takes a caller error under checks off.
  reps: Int32Array;
  repsCount = 0;

  constructor(pageIds: number) {
    this.plain = new Int32Array(pageIds);
    this.seen = new Int32Array(pageIds);
    this.reps = new Int32Array(pageIds);
  }

  /** Empties both lists for a new group. */
  begin(): void {
    this.plainCount = 0;
    this.repsCount = 0;
    if (this.stamp === kStampMax) {
      this.seen.fill(0);
      this.stamp = 0;
    }
    this.stamp++;
  }

  /** Empties both lists (their contents stay readable until the next queue). */
  empty(): void {
    this.plainCount = 0;
    this.repsCount = 0;
  }

  /** `pages[start, start + n)` join the plain frees, each page once per group. */
  queuePlain(pages: Int32Array, start: number, n: number): void {
    for (let i = start; i < start + n; i++) {
      const page = pages[i] as number;
      if (this.seen[page] === this.stamp) continue;
      this.seen[page] = this.stamp;
      this.plain[this.plainCount++] = page;
    }
  }

  /** `pages[start, start + n)` join the segment representatives as they are. */
  queueReps(pages: Int32Array, start: number, n: number): void {
    if (this.repsCount + n > this.reps.length) {
      const grown = new Int32Array(Math.max(2 * this.reps.length, this.repsCount + n));
      grown.set(this.reps.subarray(0, this.repsCount));
      this.reps = grown;
    }
    for (let i = start; i < start + n; i++) this.reps[this.repsCount++] = pages[i] as number;
  }
}
