import { booleanField, positiveIntegerField } from './config-fields.js';
import { ConfigError } from './errors.js';
import type { AllocatorConfig, ResolvedAllocatorConfig } from './types.js';

/** DCP world sizes kvfuzz models (the engine runs 1 to 16 ranks; sizes are powers of two). */
export const kDcpSizes: readonly number[] = [1, 2, 4, 8, 16];

/** Largest kernel page the models draw (SGLang's common paged backends use at most 64). */
export const kKernelPageSizeMax = 64;

/** Largest logical pool the reference accepts: slot ids must stay exact in an Int32Array. */
export const kSizeTokensMax = 2 ** 30;

/**
 * Fills the defaults of an {@link AllocatorConfig} and checks it.
 *
 * @param config - the configuration as the caller wrote it.
 * @returns the resolved configuration with the allocator page size and page count.
 * @throws ConfigError naming the bad value: a size or page size that is not a positive integer,
 *   a DCP size that is not a power of two or does not divide the size, or a size that is not a
 *   multiple of the allocator page size.
 */
export function resolveAllocatorConfig(config: AllocatorConfig): ResolvedAllocatorConfig {
  if (typeof config !== 'object' || config === null) throw new ConfigError(`config ${String(config)} is not an object`);
  const sizeTokens = positiveIntegerField('sizeTokens', config.sizeTokens);
  const kernelPageSize = positiveIntegerField('kernelPageSize', config.kernelPageSize ?? 1);
  const dcpSize = positiveIntegerField('dcpSize', config.dcpSize ?? 1);
  const needSort = booleanField('needSort', config.needSort, false);
  const checks = booleanField('checks', config.checks, true);
  if ((dcpSize & (dcpSize - 1)) !== 0) throw new ConfigError(`dcpSize ${dcpSize} is not a power of two`);
  if (sizeTokens > kSizeTokensMax) throw new ConfigError(`sizeTokens ${sizeTokens} exceeds the maximum ${kSizeTokensMax}`);
  if (sizeTokens % dcpSize !== 0) {
    throw new ConfigError(`DCP logical size ${sizeTokens} must be divisible by dcpSize ${dcpSize}`);
  }
  const pageSize = kernelPageSize * dcpSize;
  if (sizeTokens % pageSize !== 0) {
    throw new ConfigError(
      `sizeTokens ${sizeTokens} is not a multiple of the allocator page size ${pageSize} ` +
        `(kernelPageSize ${kernelPageSize} × dcpSize ${dcpSize}); the engine would silently drop ` +
        `${sizeTokens % pageSize} slots, pass ${sizeTokens - (sizeTokens % pageSize)}`,
    );
  }
  return { sizeTokens, kernelPageSize, dcpSize, needSort, checks, pageSize, pageCount: sizeTokens / pageSize };
}
