import fc from 'fast-check';
import { kDcpSizes } from '@kvfuzz/allocator-core';
import { z } from 'zod';
import { fixedOr, poolPagesArbitrary } from '../geometry-draws.js';

/** Kernel pages the models draw: the engine's common sizes from token (1) to 64. */
export const kKernelPageSizes: readonly number[] = [1, 2, 4, 8, 16, 64];

/** Largest pool a run draws, in allocator pages: "a few hundred", small enough for O(pages) checks per command. */
export const kPoolPagesMax = 300;

/** The geometry of one run, drawn once and printed in every failure header. */
export interface AllocatorGeometry {
  readonly kernelPageSize: number;
  readonly dcpSize: number;
  /** Allocator pages that can be handed out (page 0 comes on top). */
  readonly poolPages: number;
  readonly needSort: boolean;
  readonly checks: boolean;
}

export function pageSizeOf(g: AllocatorGeometry): number {
  return g.kernelPageSize * g.dcpSize;
}

export function sizeTokensOf(g: AllocatorGeometry): number {
  return g.poolPages * pageSizeOf(g);
}

export function formatGeometry(g: AllocatorGeometry): string {
  return `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize} = page ${pageSizeOf(g)}, ${g.poolPages} pages, needSort ${g.needSort}, checks ${g.checks}`;
}

/** Pools from one page (every allocation contends) to a few hundred (long build-ups). Fixed fields are not drawn. */
export function geometryArbitrary(fixed: Partial<AllocatorGeometry> = {}): fc.Arbitrary<AllocatorGeometry> {
  return fc.record({
    kernelPageSize: fixedOr(fixed.kernelPageSize, fc.constantFrom(...kKernelPageSizes)),
    dcpSize: fixedOr(fixed.dcpSize, fc.constantFrom(...kDcpSizes)),
    poolPages: fixedOr(
      fixed.poolPages,
      poolPagesArbitrary(kPoolPagesMax),
    ),
    needSort: fixedOr(fixed.needSort, fc.boolean()),
    checks: fixedOr(fixed.checks, fc.boolean()),
  });
}

/** One of the listed numbers (a kernel page size, a DCP size), for a stored geometry's schema. */
export function oneOfSchema(values: readonly number[]): z.ZodType<number> {
  return z.number().refine((v) => values.includes(v), { message: `is not one of ${values.join(', ')}` });
}

/**
 * A stored geometry (a regression file's), checked against the ranges the model draws from, so a
 * replay never builds a pool larger than a campaign could have.
 */
export const allocatorGeometrySchema: z.ZodType<AllocatorGeometry> = z.strictObject({
  kernelPageSize: oneOfSchema(kKernelPageSizes),
  dcpSize: oneOfSchema(kDcpSizes),
  poolPages: z.int().min(1).max(kPoolPagesMax),
  needSort: z.boolean(),
  checks: z.boolean(),
});
