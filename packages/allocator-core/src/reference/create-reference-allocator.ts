import type { AllocatorConfig, AllocatorProvider } from '../types.js';
import { ReferenceAllocator } from './reference-allocator.js';

/**
 * The plain reference allocator for a configuration: the token allocator's rules at allocator
 * page size 1, the paged allocator's above, in one class.
 *
 * @throws ConfigError naming the bad value.
 */
export function createReferenceAllocator(config: AllocatorConfig): ReferenceAllocator {
  return new ReferenceAllocator(config);
}

/** The plain reference as a provider, the way `pnpm validate` loads alternatives. */
export const plainReferenceProvider: AllocatorProvider = { name: 'plain-reference', create: createReferenceAllocator };
