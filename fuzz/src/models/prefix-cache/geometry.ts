import fc from 'fast-check';
import { kDcpSizes } from '@kvfuzz/allocator-core';
import { kEvictionPolicies, type EvictionPolicy, type FinishPath } from '@kvfuzz/prefix-cache';
import { kKernelPageSizes } from '../allocator/geometry.js';

/** Largest request, in allocator pages: room for prefixes, chunks, decode and over-allocation. */
export const kRowPagesMax = 16;

/** The geometry of one request-lifecycle run, drawn once and printed in every failure header. */
export interface PrefixGeometry {
  readonly kernelPageSize: number;
  readonly dcpSize: number;
  /** Allocator pages in the pool: from tight (evictions forced) to roomy. */
  readonly poolPages: number;
  /** Concurrent requests (req-to-token rows). */
  readonly rowCount: number;
  readonly needSort: boolean;
  readonly checks: boolean;
  readonly finishPath: FinishPath;
  readonly evictionPolicy: EvictionPolicy;
  /** Finishes go through a free group, as a scheduler batching releases does. */
  readonly groupedFinish: boolean;
}

export function prefixPageSizeOf(g: PrefixGeometry): number {
  return g.kernelPageSize * g.dcpSize;
}

export function formatPrefixGeometry(g: PrefixGeometry): string {
  return (
    `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize} = page ${prefixPageSizeOf(g)}, ${g.poolPages} pages, ${g.rowCount} rows, ` +
    `needSort ${g.needSort}, checks ${g.checks}, finishPath ${g.finishPath}, policy ${g.evictionPolicy}, groupedFinish ${g.groupedFinish}`
  );
}

export function prefixGeometryArbitrary(fixed: Partial<PrefixGeometry> = {}): fc.Arbitrary<PrefixGeometry> {
  const either = <T>(value: T | undefined, arb: fc.Arbitrary<T>): fc.Arbitrary<T> => (value === undefined ? arb : fc.constant(value));
  return fc.record({
    kernelPageSize: either(fixed.kernelPageSize, fc.constantFrom(...kKernelPageSizes)),
    // DCP widening makes the kernel grid finer than the allocator page: weigh it up.
    dcpSize: either(fixed.dcpSize, fc.constantFrom(...kDcpSizes, 8, 8, 4)),
    poolPages: either(fixed.poolPages, fc.oneof(fc.integer({ min: 3, max: 12 }), fc.integer({ min: 13, max: 64 }))),
    rowCount: either(fixed.rowCount, fc.integer({ min: 1, max: 8 })),
    needSort: either(fixed.needSort, fc.boolean()),
    checks: either(fixed.checks, fc.boolean()),
    finishPath: either(fixed.finishPath, fc.constantFrom<FinishPath>('unified', 'unified', 'classic')),
    evictionPolicy: either(fixed.evictionPolicy, fc.constantFrom(...kEvictionPolicies)),
    groupedFinish: either(fixed.groupedFinish, fc.boolean()),
  });
}
