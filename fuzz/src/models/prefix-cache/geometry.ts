import fc from 'fast-check';
import { kDcpSizes } from '@kvfuzz/allocator-core';
import { kEvictionPolicies, type EvictionPolicy, type FinishPath } from '@kvfuzz/prefix-cache';
import { z } from 'zod';
import { kKernelPageSizes, oneOfSchema } from '../allocator/geometry.js';
import { fixedOr } from '../geometry-draws.js';

/** Largest request, in allocator pages: room for prefixes, chunks, decode and over-allocation. */
export const kRowPagesMax = 16;

/** Largest pool a lifecycle run draws, in allocator pages: roomy enough that evictions are rare. */
export const kPrefixPoolPagesMax = 64;

/** Most concurrent requests (req-to-token rows) a run draws. */
export const kRowCountMax = 8;

/** The finish paths of the prefix cache, for a stored geometry's schema. */
const kFinishPaths: readonly FinishPath[] = ['unified', 'classic'];

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

/** Token counts on the two grids: up to `pagesMax` whole allocator pages, kernel pages inside one, and loose tokens. */
export function tokensArbitrary(g: PrefixGeometry, pagesMax: number): fc.Arbitrary<number> {
  const ps = prefixPageSizeOf(g);
  return fc
    .tuple(fc.integer({ min: 0, max: pagesMax }), fc.integer({ min: 0, max: g.dcpSize - 1 }), fc.oneof(fc.constant(0), fc.integer({ min: 0, max: g.kernelPageSize - 1 })))
    .map(([pages, kernels, loose]) => pages * ps + kernels * g.kernelPageSize + loose);
}

export function formatPrefixGeometry(g: PrefixGeometry): string {
  return (
    `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize} = page ${prefixPageSizeOf(g)}, ${g.poolPages} pages, ${g.rowCount} rows, ` +
    `needSort ${g.needSort}, checks ${g.checks}, finishPath ${g.finishPath}, policy ${g.evictionPolicy}, groupedFinish ${g.groupedFinish}`
  );
}

export function prefixGeometryArbitrary(fixed: Partial<PrefixGeometry> = {}): fc.Arbitrary<PrefixGeometry> {
  return fc.record({
    kernelPageSize: fixedOr(fixed.kernelPageSize, fc.constantFrom(...kKernelPageSizes)),
    // DCP widening makes the kernel grid finer than the allocator page: weigh it up.
    dcpSize: fixedOr(fixed.dcpSize, fc.constantFrom(...kDcpSizes, 8, 8, 4)),
    poolPages: fixedOr(fixed.poolPages, fc.oneof(fc.integer({ min: 3, max: 12 }), fc.integer({ min: 13, max: kPrefixPoolPagesMax }))),
    rowCount: fixedOr(fixed.rowCount, fc.integer({ min: 1, max: kRowCountMax })),
    needSort: fixedOr(fixed.needSort, fc.boolean()),
    checks: fixedOr(fixed.checks, fc.boolean()),
    finishPath: fixedOr(fixed.finishPath, fc.constantFrom<FinishPath>('unified', 'unified', 'classic')),
    evictionPolicy: fixedOr(fixed.evictionPolicy, fc.constantFrom(...kEvictionPolicies)),
    groupedFinish: fixedOr(fixed.groupedFinish, fc.boolean()),
  });
}

/** The lifecycle geometry's fields, checked against the ranges the model draws from (shared with the two-tier schema). */
export const prefixGeometryFields = {
  kernelPageSize: oneOfSchema(kKernelPageSizes),
  dcpSize: oneOfSchema(kDcpSizes),
  poolPages: z.int().min(1).max(kPrefixPoolPagesMax),
  rowCount: z.int().min(1).max(kRowCountMax),
  needSort: z.boolean(),
  checks: z.boolean(),
  finishPath: z.enum(kFinishPaths as [FinishPath, ...FinishPath[]]),
  evictionPolicy: z.enum(kEvictionPolicies as [EvictionPolicy, ...EvictionPolicy[]]),
  groupedFinish: z.boolean(),
};

/** A stored lifecycle geometry (a regression file's), checked against the ranges the model draws from. */
export const prefixGeometrySchema: z.ZodType<PrefixGeometry> = z.strictObject(prefixGeometryFields);
