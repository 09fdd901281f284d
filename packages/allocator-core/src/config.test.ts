import { describe, expect, it } from 'vitest';
import { kDcpSizes, kKernelPageSizeMax, kSizeTokensMax, resolveAllocatorConfig } from './config.js';
import { ConfigError } from './errors.js';
import { PagedAllocator } from './paged-allocator.js';
import { expectThrown } from './test-support/expect-rejected.js';
import type { AllocatorConfig } from './types.js';

// resolveAllocatorConfig (STYLE rule 3): defaults filled, bad values refused with a ConfigError
// naming them, before anything is built (STYLE rule 18: control, one rule at a time, both sides).
const kControl: AllocatorConfig = { sizeTokens: 64, kernelPageSize: 4, dcpSize: 2, needSort: false, checks: true };

function refused(config: unknown, named: readonly (string | number)[]): void {
  expectThrown(() => resolveAllocatorConfig(config as AllocatorConfig), ConfigError, named);
  // The allocator constructors resolve first, so they refuse the same config.
  expectThrown(() => new PagedAllocator(config as AllocatorConfig), ConfigError, named);
}

describe('allocator-core:config,resolve', () => {
  it('control: resolves the allocator page (kernel × DCP) and the page count', () => {
    expect(resolveAllocatorConfig(kControl)).toEqual({ ...kControl, pageSize: 8, pageCount: 8 });
  });

  it('fills the defaults: kernel page 1, DCP 1, needSort off, checks on', () => {
    expect(resolveAllocatorConfig({ sizeTokens: 16 })).toEqual({
      sizeTokens: 16,
      kernelPageSize: 1,
      dcpSize: 1,
      needSort: false,
      checks: true,
      pageSize: 1,
      pageCount: 16,
    });
  });

  it('the kernel 64 × DCP 8 geometry resolves to the widened page 512', () => {
    expect(resolveAllocatorConfig({ sizeTokens: 4096, kernelPageSize: 64, dcpSize: 8 })).toMatchObject({ pageSize: 512, pageCount: 8 });
  });

  it('the named limits agree with each other', () => {
    expect(kDcpSizes).toEqual([1, 2, 4, 8, 16]);
    expect(kKernelPageSizeMax).toBe(64);
    expect(kSizeTokensMax % ((kDcpSizes.at(-1) ?? 1) * kKernelPageSizeMax)).toBe(0);
  });
});

describe('allocator-core:config,reject', () => {
  it('refuses a config that is not an object', () => {
    refused(null, ['config null']);
    refused(16, ['config 16']);
  });

  it.each(['sizeTokens', 'kernelPageSize', 'dcpSize'] as const)('refuses a %s that is not a positive integer (1 passes)', (field) => {
    for (const bad of [0, -1, -8, 1.5, Number.NaN, '8']) {
      refused({ ...kControl, sizeTokens: field === 'sizeTokens' ? bad : 64, [field]: bad }, [`${field} ${String(bad)} is not a positive integer`]);
    }
    expect(resolveAllocatorConfig({ sizeTokens: 1, kernelPageSize: 1, dcpSize: 1 }).pageCount).toBe(1);
  });

  it('refuses a missing sizeTokens', () => {
    refused({ kernelPageSize: 4 }, ['sizeTokens undefined']);
  });

  it.each([3, 5, 6, 7, 12])('refuses dcpSize %i, not a power of two', (dcpSize) => {
    refused({ sizeTokens: 4 * 3 * 5 * 7 * 16, dcpSize }, [`dcpSize ${dcpSize} is not a power of two`]);
  });

  it.each(kDcpSizes)('accepts dcpSize %i (2^k), where 2^k − 1 is refused above 2', (dcpSize) => {
    expect(resolveAllocatorConfig({ sizeTokens: 64, dcpSize }).pageSize).toBe(dcpSize);
    if (dcpSize > 2) refused({ sizeTokens: 64 * 3 * 5 * 7, dcpSize: dcpSize - 1 }, ['not a power of two']);
  });

  it('refuses a size not divisible by the DCP size: 6 and 4 (2^(k−1)) with DCP 8; 8 passes', () => {
    refused({ sizeTokens: 6, dcpSize: 8 }, ['DCP logical size 6 must be divisible by dcpSize 8']);
    refused({ sizeTokens: 4, dcpSize: 8 }, ['DCP logical size 4 must be divisible by dcpSize 8']);
    expect(resolveAllocatorConfig({ sizeTokens: 8, dcpSize: 8 }).pageCount).toBe(1);
  });

  it('refuses a size not a multiple of the allocator page 8: 63 (N − 1), 62 and 36; 64 passes', () => {
    refused({ sizeTokens: 63, kernelPageSize: 8 }, ['sizeTokens 63', 'allocator page size 8', 'drop 7 slots, pass 56']);
    refused({ ...kControl, sizeTokens: 62 }, ['sizeTokens 62', 'allocator page size 8', 'pass 56']);
    refused({ ...kControl, sizeTokens: 36 }, ['sizeTokens 36', 'allocator page size 8', 'drop 4 slots']);
    expect(resolveAllocatorConfig({ ...kControl, sizeTokens: 64 }).pageCount).toBe(8);
  });

  it('refuses a size divisible by the DCP size and the kernel page but not by their product (page 512)', () => {
    refused({ sizeTokens: 4096 + 256, kernelPageSize: 64, dcpSize: 8 }, ['sizeTokens 4352', 'allocator page size 512']);
  });

  it('refuses a size over kSizeTokensMax (2^30); 2^30 itself passes', () => {
    refused({ sizeTokens: kSizeTokensMax + 64, kernelPageSize: 64 }, [`exceeds the maximum ${kSizeTokensMax}`]);
    expect(resolveAllocatorConfig({ sizeTokens: kSizeTokensMax, kernelPageSize: 64 }).pageCount).toBe(kSizeTokensMax / 64);
  });

  it.each(['needSort', 'checks'] as const)('refuses a %s that is not a boolean', (field) => {
    refused({ ...kControl, [field]: 1 }, [`${field} 1 is not a boolean`]);
    refused({ ...kControl, [field]: 'true' }, [`${field} true is not a boolean`]);
  });
});
