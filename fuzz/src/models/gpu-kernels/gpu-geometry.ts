import fc from 'fast-check';
import { kDcpSizes } from '@kvfuzz/allocator-core';
import { z } from 'zod';
import { kKernelPageSizes, oneOfSchema } from '../allocator/geometry.js';
import { fixedOr, poolPagesArbitrary } from '../geometry-draws.js';

/**
 * Largest pool a lock-step run draws, in allocator pages: room for several rows and wide batches,
 * small enough that the O(pages) checks and the GPU free batches stay cheap on a software driver.
 */
export const kGpuPoolPagesMax = 96;

/** The geometry of one lock-step run, drawn once and printed in every failure header. */
export interface GpuKernelsGeometry {
  readonly kernelPageSize: number;
  readonly dcpSize: number;
  /** Allocator pages that can be handed out (page 0 comes on top). */
  readonly poolPages: number;
  /** The CPU allocator's in-line checks (the GPU kernels are checked by the lock-step comparison). */
  readonly checks: boolean;
}

/** Allocator page size: kernel page × DCP, as the allocator widens it. */
export function gpuPageSizeOf(g: GpuKernelsGeometry): number {
  return g.kernelPageSize * g.dcpSize;
}

/** The geometry as the failure header prints it. */
export function formatGpuGeometry(g: GpuKernelsGeometry): string {
  return `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize} = page ${gpuPageSizeOf(g)}, ${g.poolPages} pages, checks ${g.checks}`;
}

/**
 * Pools from one page (every batch contends, `null` is common) to roomy. `needSort` is not drawn:
 * the kernels take the free list as given, and staging is the allocator model's business.
 * Fixed fields are not drawn.
 */
export function gpuGeometryArbitrary(fixed: Partial<GpuKernelsGeometry> = {}): fc.Arbitrary<GpuKernelsGeometry> {
  return fc.record({
    kernelPageSize: fixedOr(fixed.kernelPageSize, fc.constantFrom(...kKernelPageSizes)),
    dcpSize: fixedOr(fixed.dcpSize, fc.constantFrom(...kDcpSizes)),
    poolPages: fixedOr(
      fixed.poolPages,
      poolPagesArbitrary(kGpuPoolPagesMax),
    ),
    checks: fixedOr(fixed.checks, fc.boolean()),
  });
}

/** A stored lock-step geometry (a regression file's), checked against the ranges the model draws from. */
export const gpuGeometrySchema: z.ZodType<GpuKernelsGeometry> = z.strictObject({
  kernelPageSize: oneOfSchema(kKernelPageSizes),
  dcpSize: oneOfSchema(kDcpSizes),
  poolPages: z.int().min(1).max(kGpuPoolPagesMax),
  checks: z.boolean(),
});
