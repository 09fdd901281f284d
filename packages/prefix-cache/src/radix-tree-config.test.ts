import { describe, expect, it } from 'vitest';
import { CacheConfigError } from './errors.js';
import type { EvictionPolicy } from './eviction-policy.js';
import { resolveRadixTreeConfig } from './radix-tree-config.js';
import { RecordingAllocator } from './test-support/recording-allocator.js';

describe('prefix-cache:radix-tree-config,resolve', () => {
  it('control: fills lru and enabled, and takes the allocator page size (1, 8)', () => {
    for (const pageSize of [1, 8]) {
      const allocator = RecordingAllocator.fake(pageSize);
      expect(resolveRadixTreeConfig({ allocator })).toEqual({ allocator, evictionPolicy: 'lru', disabled: false, pageSize });
    }
    const allocator = RecordingAllocator.fake(2);
    expect(resolveRadixTreeConfig({ allocator, evictionPolicy: 'filo', disabled: true })).toMatchObject({ evictionPolicy: 'filo', disabled: true });
  });

  it.each([0, -2, 1.5, Number.NaN])('refuses an allocator page size of %s, naming it', (pageSize) => {
    const allocator = { ...RecordingAllocator.fake(1), pageSize };
    expect(() => resolveRadixTreeConfig({ allocator: allocator as never })).toThrow(CacheConfigError);
    expect(() => resolveRadixTreeConfig({ allocator: allocator as never })).toThrow(`pageSize ${pageSize} is not a positive integer`);
  });

  it('refuses an unknown policy naming it, a missing allocator, a non-object config and a non-boolean disabled', () => {
    const allocator = RecordingAllocator.fake(1);
    expect(() => resolveRadixTreeConfig({ allocator, evictionPolicy: 'slru' as EvictionPolicy })).toThrow("Unknown eviction policy: 'slru'");
    expect(() => resolveRadixTreeConfig({ allocator: undefined as never })).toThrow(/allocator undefined is not an allocator/);
    expect(() => resolveRadixTreeConfig(null as never)).toThrow(CacheConfigError);
    expect(() => resolveRadixTreeConfig({ allocator, disabled: 1 as never })).toThrow('disabled 1 is not a boolean');
  });
});
