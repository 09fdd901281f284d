/**
 * Typed errors of `@kvfuzz/prefix-cache`. Like allocator-core's, each has a stable `name` and
 * `code` and a message that names the offending values; all extend `KvfuzzError`.
 *
 * @packageDocumentation
 */
import { KvfuzzError } from '@kvfuzz/allocator-core';

/** A lock count would go below zero (the engine does not check this; kvfuzz does). */
export class LockRefError extends KvfuzzError {
  constructor(message: string) {
    super('LockRefError', 'KVFUZZ_LOCK_REF', message);
  }
}

/** Ranges given to `coalesceRanges`/`freeKvRow` are not ascending, disjoint, half-open and in the row. */
export class RangeOrderError extends KvfuzzError {
  constructor(message: string) {
    super('RangeOrderError', 'KVFUZZ_RANGE_ORDER', message);
  }
}

/** A free would split a page between two calls (the engine's "SWA eviction floor … splits a page"). */
export class PageSplitError extends KvfuzzError {
  constructor(message: string) {
    super('PageSplitError', 'KVFUZZ_PAGE_SPLIT', message);
  }
}

/** Request bookkeeping out of order: `cacheProtectedLen ≤ committed ≤ allocated`, alignment, row bounds. */
export class RequestStateError extends KvfuzzError {
  constructor(message: string) {
    super('RequestStateError', 'KVFUZZ_REQUEST_STATE', message);
  }
}

/** Bad cache configuration or key (unknown eviction policy, tree page not dividing the allocator page, …). */
export class CacheConfigError extends KvfuzzError {
  constructor(message: string) {
    super('CacheConfigError', 'KVFUZZ_CACHE_CONFIG', message);
  }
}
