/**
 * How a radix tree is built: the allocator it frees into, its eviction policy, and whether it
 * caches at all.
 *
 * @packageDocumentation
 */
import type { PageAllocator } from '@kvfuzz/allocator-core';
import { CacheConfigError } from './errors.js';
import { isEvictionPolicy, kEvictionPolicies, type EvictionPolicy } from './eviction-policy.js';

/** How a {@link RadixTree} is built. */
export interface RadixTreeConfig {
  /**
   * The allocator that evicted slots and (with `prevPrefixLen`) duplicate slots go back to. Its
   * page size is the tree page size, so every free the tree issues is whole allocator pages.
   */
  readonly allocator: PageAllocator;
  /**
   * Which evictable leaf `evict` removes first.
   * @defaultValue 'lru'
   */
  readonly evictionPolicy?: EvictionPolicy;
  /**
   * A disabled tree matches nothing and inserts nothing (the engine's `disable_radix_cache`).
   * @defaultValue false
   */
  readonly disabled?: boolean;
}

/** A {@link RadixTreeConfig} with every default filled in and the tree page size. */
export interface ResolvedRadixTreeConfig {
  readonly allocator: PageAllocator;
  readonly evictionPolicy: EvictionPolicy;
  readonly disabled: boolean;
  /** Tree page size in tokens: the allocator's page size. */
  readonly pageSize: number;
}

/**
 * Fills the defaults of a {@link RadixTreeConfig} and checks it before anything is built.
 *
 * @param config - the configuration as the caller wrote it.
 * @returns the resolved configuration with the tree page size.
 * @throws CacheConfigError naming the bad value: a missing allocator, an allocator page size that
 *   is not a positive integer, an unknown eviction policy, or a `disabled` that is not a boolean.
 */
export function resolveRadixTreeConfig(config: RadixTreeConfig): ResolvedRadixTreeConfig {
  if (typeof config !== 'object' || config === null) throw new CacheConfigError(`radix tree config ${String(config)} is not an object`);
  const { allocator } = config;
  if (typeof allocator !== 'object' || allocator === null) throw new CacheConfigError(`radix tree allocator ${String(allocator)} is not an allocator`);
  const pageSize = allocator.pageSize;
  if (!Number.isInteger(pageSize) || pageSize <= 0) {
    throw new CacheConfigError(`allocator pageSize ${String(pageSize)} is not a positive integer`);
  }
  const evictionPolicy = config.evictionPolicy ?? 'lru';
  if (!isEvictionPolicy(evictionPolicy)) {
    throw new CacheConfigError(`Unknown eviction policy: '${String(evictionPolicy)}' (known: ${kEvictionPolicies.join(', ')})`);
  }
  const disabled = config.disabled ?? false;
  if (typeof disabled !== 'boolean') throw new CacheConfigError(`disabled ${String(disabled)} is not a boolean`);
  return { allocator, evictionPolicy, disabled, pageSize };
}
