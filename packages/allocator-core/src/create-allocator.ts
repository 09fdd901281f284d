import { resolveAllocatorConfig } from './config.js';
import { PagedAllocator } from './paged-allocator.js';
import { TokenAllocator } from './token-allocator.js';
import type { AllocatorConfig, AllocatorProvider } from './types.js';

/**
 * The engine's choice: the token allocator at allocator page size 1, the paged allocator above.
 *
 * @throws ConfigError naming the bad value.
 */
export function createAllocator(config: AllocatorConfig): TokenAllocator | PagedAllocator {
  return resolveAllocatorConfig(config).pageSize === 1 ? new TokenAllocator(config) : new PagedAllocator(config);
}

/** The fast allocators as a provider, the way `pnpm validate` loads alternatives (exact mode compares against the plain `ReferenceAllocator`). */
export const referenceProvider: AllocatorProvider = { name: 'reference', create: createAllocator };
