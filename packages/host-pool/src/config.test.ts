import { ConfigError } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { kHostPageSizeMax, kHostSizeTokensMax, kSlotEndMax, resolveHostSlotPoolConfig } from './config.js';
import { HostSlotPool } from './host-slot-pool.js';
import { expectThrown } from './test-support/expect-rejected.js';
import type { HostSlotPoolConfig } from './types.js';

// resolveHostSlotPoolConfig (STYLE rule 3): defaults filled, bad values refused with a ConfigError
// naming them before anything is built (STYLE rule 18: a control, one rule at a time, both sides
// of each boundary).
const kControl: HostSlotPoolConfig = { sizeTokens: 32, pageSize: 8, dcpSize: 4, checks: true };

function refused(config: unknown, named: string | readonly (string | number)[]): void {
  expectThrown(() => resolveHostSlotPoolConfig(config as HostSlotPoolConfig), ConfigError, named);
  // The constructor resolves first, so it refuses the same config.
  expectThrown(() => new HostSlotPool(config as HostSlotPoolConfig), ConfigError, named);
}

function resolves(config: HostSlotPoolConfig): void {
  expect(() => resolveHostSlotPoolConfig(config)).not.toThrow();
}

describe('host-pool:config,resolve', () => {
  it('control: resolves the physical (kernel) page of the widened page', () => {
    expect(resolveHostSlotPoolConfig(kControl)).toEqual({ ...kControl, physicalPageSize: 2 });
  });

  it('fills the defaults: DCP 1, checks on', () => {
    expect(resolveHostSlotPoolConfig({ sizeTokens: 8, pageSize: 2 })).toEqual({ sizeTokens: 8, pageSize: 2, dcpSize: 1, checks: true, physicalPageSize: 2 });
  });

  it('the kernel 64 × DCP 8 geometry: widened page 512, physical page 64', () => {
    expect(resolveHostSlotPoolConfig({ sizeTokens: 4096, pageSize: 512, dcpSize: 8, checks: false })).toMatchObject({ physicalPageSize: 64, checks: false });
  });

  it('the named limits agree: the largest pool keeps its last slot id exact in an Int32Array', () => {
    expect(kHostSizeTokensMax + kHostPageSizeMax).toBeLessThanOrEqual(kSlotEndMax);
    expect(kSlotEndMax - 1).toBe(0x7fffffff);
  });
});

describe('host-pool:config,reject', () => {
  it('refuses a config that is not an object', () => {
    refused(null, ['config null']);
    refused(8, ['config 8']);
  });

  it.each(['pageSize', 'dcpSize'] as const)('%s: 1 passes; 0, −1, 1.5, NaN and a string are refused', (field) => {
    resolves({ ...kControl, dcpSize: 1, [field]: 1 });
    for (const value of [0, -1, 1.5, Number.NaN, '8']) refused({ ...kControl, [field]: value }, `${field} ${String(value)} is not a positive integer`);
  });

  it('sizeTokens: 0 (the engine\'s empty request) and 1 pass; −1, 1.5, NaN and a string are refused', () => {
    resolves({ ...kControl, sizeTokens: 0 });
    resolves({ ...kControl, sizeTokens: 1 });
    for (const value of [-1, 1.5, Number.NaN, '8']) refused({ ...kControl, sizeTokens: value }, `sizeTokens ${String(value)} is not a non-negative integer`);
  });

  it('sizeTokens and pageSize: missing is refused', () => {
    refused({ pageSize: 2 }, 'sizeTokens undefined is not a non-negative integer');
    refused({ sizeTokens: 8 }, 'pageSize undefined is not a positive integer');
  });

  it('dcpSize: 4 and 8 (2^k) pass; 3, 6 and 12 are refused as not powers of two', () => {
    resolves({ ...kControl, pageSize: 24, dcpSize: 8 });
    resolves({ ...kControl, pageSize: 24, dcpSize: 4 });
    for (const dcpSize of [3, 6, 12]) refused({ ...kControl, pageSize: 24, dcpSize }, `dcpSize ${dcpSize} is not a power of two`);
  });

  it('pageSize must be a multiple of dcpSize: 4, 8 and 16 pass DCP 4; 6, 14, 2 (half of it) and 1 are refused in the engine\'s words', () => {
    resolves({ ...kControl, pageSize: 8 });
    resolves({ ...kControl, pageSize: 16 });
    resolves({ ...kControl, pageSize: 4 });
    for (const pageSize of [6, 2, 14, 1]) {
      refused({ ...kControl, pageSize }, [
        `HiCache host pool page_size (${pageSize}) must be a multiple of dcp_size (4); expected the widened page`,
      ]);
    }
  });

  it('sizeTokens: the maximum passes, one more is refused', () => {
    resolves({ ...kControl, sizeTokens: kHostSizeTokensMax });
    refused({ ...kControl, sizeTokens: kHostSizeTokensMax + 1 }, `sizeTokens ${kHostSizeTokensMax + 1} exceeds the maximum ${kHostSizeTokensMax}`);
  });

  it('pageSize: the maximum passes, one page of DCP more is refused', () => {
    resolves({ ...kControl, pageSize: kHostPageSizeMax });
    refused({ ...kControl, pageSize: kHostPageSizeMax + 4 }, `pageSize ${kHostPageSizeMax + 4} exceeds the maximum ${kHostPageSizeMax}`);
  });

  it('checks: true, false and absent pass; anything else is refused', () => {
    resolves({ ...kControl, checks: false });
    resolves({ sizeTokens: 8, pageSize: 2 });
    refused({ ...kControl, checks: 1 }, 'checks 1 is not a boolean');
    refused({ ...kControl, checks: 'yes' }, 'checks yes is not a boolean');
  });
});
