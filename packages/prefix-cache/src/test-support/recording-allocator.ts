/**
 * A {@link PageAllocator} for tree tests that records every free the tree issues. Fake mode
 * (no inner allocator) accepts any slots and allocates nothing, for the engine's "simulated, no
 * pools" tests; wrapping mode forwards every call to a real allocator, so its exactly-once checks
 * stay on.
 */
import type { FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';

/** One recorded give-back, with copies of the slots as they were at call time. */
export type RecordedFree =
  | { readonly op: 'free'; readonly slots: number[] }
  | { readonly op: 'freeSegments'; readonly segments: { readonly slots: number[]; readonly startPos: number }[] };

export class RecordingAllocator implements PageAllocator {
  readonly pageSize: number;
  readonly numPages: number;
  /** Every `free` and `freeSegments` call, in order. */
  readonly calls: RecordedFree[] = [];

  private constructor(
    private readonly inner: PageAllocator | null,
    pageSize: number,
  ) {
    this.pageSize = pageSize;
    this.numPages = inner?.numPages ?? 0;
  }

  /** A fake of page size `pageSize` (slots) that only records. */
  static fake(pageSize: number): RecordingAllocator {
    return new RecordingAllocator(null, pageSize);
  }

  /** Records and forwards every call to `inner`. */
  static wrapping(inner: PageAllocator): RecordingAllocator {
    return new RecordingAllocator(inner, inner.pageSize);
  }

  /** Every slot given back so far, call after call (plain frees and segments alike). */
  freedSlots(): number[] {
    return this.calls.flatMap((call) => (call.op === 'free' ? call.slots : call.segments.flatMap((segment) => segment.slots)));
  }

  availableSize(): number {
    return this.real('availableSize').availableSize();
  }

  alloc(needSize: number): Int32Array | null {
    return this.real('alloc').alloc(needSize);
  }

  allocExtend(batch: Parameters<PageAllocator['allocExtend']>[0]): Int32Array | null {
    return this.real('allocExtend').allocExtend(batch);
  }

  allocDecode(batch: Parameters<PageAllocator['allocDecode']>[0]): Int32Array | null {
    return this.real('allocDecode').allocDecode(batch);
  }

  free(indices: ArrayLike<number>): void {
    this.inner?.free(indices);
    this.calls.push({ op: 'free', slots: Array.from(indices) });
  }

  freeSegments(segments: readonly FreeSegment[]): void {
    this.inner?.freeSegments(segments);
    this.calls.push({ op: 'freeSegments', segments: segments.map((segment) => ({ slots: Array.from(segment.indices), startPos: segment.startPos })) });
  }

  freeGroupBegin(): void {
    this.real('freeGroupBegin').freeGroupBegin();
  }

  freeGroupEnd(): void {
    this.real('freeGroupEnd').freeGroupEnd();
  }

  backupState(): unknown {
    return this.real('backupState').backupState();
  }

  restoreState(state: unknown): void {
    this.real('restoreState').restoreState(state);
  }

  clear(): void {
    this.real('clear').clear();
  }

  private real(op: string): PageAllocator {
    if (this.inner === null) throw new Error(`RecordingAllocator.fake has no pool: ${op} is not available`);
    return this.inner;
  }
}
