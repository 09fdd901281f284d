import { BaseAllocator } from './base-allocator.js';
import { sortRange } from './internal/sort-range.js';
import type { AllocatorConfig } from './types.js';

/**
 * The engine's paged allocator (`PagedTokenToKVPoolAllocator`, latest variant): allocator page =
 * `kernelPageSize × dcpSize`, page 0 reserved, freed pages go to the **front** of the free list
 * (LIFO reuse) or, under `needSort`, to a staging list merged sorted when an allocation runs short.
 * A plain free releases its distinct pages in ascending order (the engine's `unique`); a segment
 * free releases its page representatives in row order; a free group releases its plain frees first,
 * then its segment representatives.
 */
export class PagedAllocator extends BaseAllocator {
  /**
   * @param config - pool size and geometry; see {@link AllocatorConfig}.
   * @throws ConfigError naming the bad value.
   */
  constructor(config: AllocatorConfig) {
    super(config);
  }

  protected override releasePages(pages: Int32Array, start: number, n: number): void {
    if (this.needSort) {
      this.stage(pages, start, n);
    } else {
      this.freeList.prepend(pages, start, n);
      if (this.checks) this.numberFront(n);
    }
  }

  protected override releasePlain(pages: Int32Array, n: number): void {
    sortRange(pages, 0, n);
    this.release(pages, 0, n);
  }

  protected override queueSegment(pages: Int32Array, start: number, n: number): void {
    this.queueReps(pages, start, n);
  }
}
