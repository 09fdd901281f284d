import type { DecodeBatch, ExtendBatch, FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';

/**
 * An allocator that passes every call to another one: the base of the harness's wrappers, each of
 * which overrides only the calls it watches or changes.
 */
export class ForwardingAllocator implements PageAllocator {
  constructor(protected readonly inner: PageAllocator) {}

  get pageSize(): number {
    return this.inner.pageSize;
  }

  get numPages(): number {
    return this.inner.numPages;
  }

  availableSize(): number {
    return this.inner.availableSize();
  }

  alloc(needSize: number): Int32Array | null {
    return this.inner.alloc(needSize);
  }

  allocExtend(batch: ExtendBatch): Int32Array | null {
    return this.inner.allocExtend(batch);
  }

  allocDecode(batch: DecodeBatch): Int32Array | null {
    return this.inner.allocDecode(batch);
  }

  free(indices: ArrayLike<number>): void {
    this.inner.free(indices);
  }

  freeSegments(segments: readonly FreeSegment[]): void {
    this.inner.freeSegments(segments);
  }

  freeGroupBegin(): void {
    this.inner.freeGroupBegin();
  }

  freeGroupEnd(): void {
    this.inner.freeGroupEnd();
  }

  backupState(): unknown {
    return this.inner.backupState();
  }

  restoreState(state: unknown): void {
    this.inner.restoreState(state);
  }

  clear(): void {
    this.inner.clear();
  }
}
