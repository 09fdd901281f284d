import { booleanField, ConfigError, kSizeTokensMax, positiveIntegerField } from '@kvfuzz/allocator-core';
import { assert } from './internal/assert.js';
import type { HostSlotPoolConfig, ResolvedHostSlotPoolConfig } from './types.js';

/** One past the largest slot id an Int32Array holds exactly (ids are `0 .. 2^31 − 1`). */
export const kSlotEndMax = 2 ** 31;

/** Largest requested host size in logical slots: the same bound as the device allocator's pool. */
export const kHostSizeTokensMax = kSizeTokensMax;

/** Largest host page in logical slots; only bounded so that the extra page keeps slot ids exact. */
export const kHostPageSizeMax = kSizeTokensMax;

// The pool holds at most sizeTokens rounded down to a page, plus one page: its last slot id must
// stay exact in an Int32Array.
assert(kHostSizeTokensMax + kHostPageSizeMax <= kSlotEndMax, `kHostSizeTokensMax + kHostPageSizeMax exceeds ${kSlotEndMax}`);

/**
 * Fills the defaults of a {@link HostSlotPoolConfig} and checks it.
 *
 * @param config - the configuration as the caller wrote it.
 * @returns the resolved configuration with the physical (kernel) page.
 * @throws ConfigError naming the bad value: a size that is not a non-negative integer (0 is the
 *   engine's empty request, a pool of one page); a page size or DCP size that is not a positive
 *   integer; a DCP size that is not a power of two; a size or page size over its maximum; a page
 *   size that is not a multiple of the DCP size (the engine's "HiCache host pool page_size (P) must
 *   be a multiple of dcp_size (D)"); `checks` that is not a boolean.
 */
export function resolveHostSlotPoolConfig(config: HostSlotPoolConfig): ResolvedHostSlotPoolConfig {
  if (typeof config !== 'object' || config === null) throw new ConfigError(`config ${String(config)} is not an object`);
  const sizeTokens = sizeTokensField(config.sizeTokens);
  const pageSize = positiveIntegerField('pageSize', config.pageSize);
  const dcpSize = positiveIntegerField('dcpSize', config.dcpSize ?? 1);
  const checks = booleanField('checks', config.checks, true);
  if ((dcpSize & (dcpSize - 1)) !== 0) throw new ConfigError(`dcpSize ${dcpSize} is not a power of two`);
  if (sizeTokens > kHostSizeTokensMax) throw new ConfigError(`sizeTokens ${sizeTokens} exceeds the maximum ${kHostSizeTokensMax}`);
  if (pageSize > kHostPageSizeMax) throw new ConfigError(`pageSize ${pageSize} exceeds the maximum ${kHostPageSizeMax}`);
  if (pageSize % dcpSize !== 0) {
    throw new ConfigError(
      `HiCache host pool page_size (${pageSize}) must be a multiple of dcp_size (${dcpSize}); expected the widened page ` +
        `(kernel page × dcp_size) from the DCP paged allocator`,
    );
  }
  return { sizeTokens, pageSize, dcpSize, checks, physicalPageSize: pageSize / dcpSize };
}

/**
 * The requested size: a non-negative integer. The engine sizes a host pool as
 * `floor(size / page_size) + 1` pages whatever the request, so an empty request (a byte budget or
 * a host-to-device ratio of 0) is a pool of one page, not an error.
 */
function sizeTokensField(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ConfigError(`sizeTokens ${String(value)} is not a non-negative integer`);
  return value;
}
