/**
 * Planted bugs in `create`: configurations A2 says must be refused, and sizes A3 says must be
 * floored. The plain reference refuses what these accept, so each is a provider around it rather
 * than a subclass overriding one step.
 */
import { createReferenceAllocator, ReferenceAllocator, type AllocatorConfig, type PageAllocator } from '@kvfuzz/allocator-core';
import { ForwardingAllocator } from '../../src/models/allocator/forwarding-allocator.js';

/** The configuration's sizes when they are positive integers with a power-of-two dcpSize, else null (the reference then says why not). */
function sizesOf(config: AllocatorConfig): { sizeTokens: number; pageSize: number; dcpSize: number } | null {
  const { sizeTokens } = config;
  const kernelPageSize = config.kernelPageSize ?? 1;
  const dcpSize = config.dcpSize ?? 1;
  const positive = [sizeTokens, kernelPageSize, dcpSize].every((v) => Number.isInteger(v) && v > 0);
  if (!positive || (dcpSize & (dcpSize - 1)) !== 0) return null;
  return { sizeTokens, pageSize: kernelPageSize * dcpSize, dcpSize };
}

/**
 * A2: `create` floors every size to whole pages without first requiring that dcpSize divide it
 * (the DCP allocator's "logical size must be divisible by dcp_world_size" assert dropped).
 */
export function createSkipsDcpDivisibility(config: AllocatorConfig): PageAllocator {
  const sizes = sizesOf(config);
  if (sizes === null || sizes.sizeTokens % sizes.dcpSize === 0 || sizes.sizeTokens < sizes.pageSize) return createReferenceAllocator(config);
  return createReferenceAllocator({ ...config, sizeTokens: sizes.sizeTokens - (sizes.sizeTokens % sizes.pageSize) });
}

/** A3: a size with a remainder gets `ceil(sizeTokens / pageSize)` pages, the last one past the KV buffers. */
export function sizeCeilPages(config: AllocatorConfig): PageAllocator {
  const sizes = sizesOf(config);
  if (sizes === null || sizes.sizeTokens % sizes.dcpSize !== 0 || sizes.sizeTokens % sizes.pageSize === 0) return createReferenceAllocator(config);
  return new ReferenceAllocator({ ...config, sizeTokens: Math.ceil(sizes.sizeTokens / sizes.pageSize) * sizes.pageSize });
}

/**
 * A3: the pool of {@link sizeCeilPages}, reporting `numPages = floor(sizeTokens / pageSize)`: the
 * reported geometry is right, the free list still holds the page past it.
 */
export function sizeCeilHidden(config: AllocatorConfig): PageAllocator {
  const inner = sizeCeilPages(config);
  const sizes = sizesOf(config);
  return sizes === null ? inner : new ReportsPages(inner, Math.floor(sizes.sizeTokens / sizes.pageSize));
}

/** An allocator that reports `numPages` of its own and forwards everything else. */
class ReportsPages extends ForwardingAllocator {
  constructor(
    inner: PageAllocator,
    private readonly reportedPages: number,
  ) {
    super(inner);
  }

  override get numPages(): number {
    return this.reportedPages;
  }
}
