import { describe, expect, it } from 'vitest';
import { createAllocator, referenceProvider } from './create-allocator.js';
import { ConfigError } from './errors.js';
import { PagedAllocator } from './paged-allocator.js';
import { TokenAllocator } from './token-allocator.js';

describe('allocator-core:create-allocator', () => {
  it('builds the token allocator at allocator page size 1', () => {
    expect(createAllocator({ sizeTokens: 16, needSort: false, checks: true })).toBeInstanceOf(TokenAllocator);
  });

  it('builds the paged allocator above page size 1, also when only the DCP size widens the page', () => {
    expect(createAllocator({ sizeTokens: 16, kernelPageSize: 4, needSort: false, checks: true })).toBeInstanceOf(PagedAllocator);
    const widened = createAllocator({ sizeTokens: 16, kernelPageSize: 1, dcpSize: 2, needSort: false, checks: true });
    expect(widened).toBeInstanceOf(PagedAllocator);
    expect(widened.pageSize).toBe(2);
  });

  it('refuses a bad config with ConfigError', () => {
    expect(() => createAllocator({ sizeTokens: 0 })).toThrow(ConfigError);
  });

  it('the reference provider is named and builds fresh, independent allocators', () => {
    expect(referenceProvider.name).toBe('reference');
    const a = referenceProvider.create({ sizeTokens: 16, kernelPageSize: 4, needSort: false, checks: true });
    const b = referenceProvider.create({ sizeTokens: 16, kernelPageSize: 4, needSort: false, checks: true });
    a.alloc(8);
    expect(a.availableSize()).toBe(8);
    expect(b.availableSize()).toBe(16);
  });
});
