import { BaseAllocator } from './base-allocator.js';
import { ConfigError } from './errors.js';
import type { AllocatorConfig } from './types.js';

/**
 * The engine's token allocator (page size 1): slot 0 reserved, freed slots go to the **back** of
 * the free list (FIFO reuse) or, under `needSort`, to a staging list merged sorted when an
 * allocation runs short. `allocExtend` and `allocDecode` take slots from the front in batch order.
 * Segment frees are plain frees, as in the engine's base allocator.
 */
export class TokenAllocator extends BaseAllocator {
  /**
   * @param config - pool size; the allocator page size `kernelPageSize × dcpSize` must be 1.
   * @throws ConfigError naming the bad value.
   */
  constructor(config: AllocatorConfig) {
    super(config);
    if (this.pageSize !== 1) {
      throw new ConfigError(`TokenAllocator needs page size 1, got ${this.pageSize} (kernelPageSize ${this.config.kernelPageSize} × dcpSize ${this.config.dcpSize}); use PagedAllocator`);
    }
  }

  protected override releasePages(pages: Int32Array, start: number, n: number): void {
    if (this.needSort) {
      this.stage(pages, start, n);
    } else {
      this.freeList.append(pages, start, n);
    }
  }

  /** The newer token allocator returns `null` without merging when even the staged pages would not do. */
  protected override mergeBeforeAlloc(pageCount: number): void {
    if (pageCount > this.freeList.count && pageCount <= this.freeList.count + this.stagedCount) this.mergeStaged();
  }

  protected override queueSegment(pages: Int32Array, start: number, n: number): void {
    this.queuePlain(pages, start, n);
  }
}
