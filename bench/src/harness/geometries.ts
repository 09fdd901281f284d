/**
 * The allocator geometries every bench sweeps: DCP size × kernel page size (slots). The
 * allocator page is their product.
 */
import type { BenchArgs } from './bench-pair.js';

/** One geometry: `dcp` ranks, kernel page `kernelPage` slots; the allocator page is `dcp × kernelPage`. */
export interface Geometry extends BenchArgs {
  readonly dcp: number;
  readonly kernelPage: number;
}

/**
 * 1×1: the token allocator (SGLang's default page size 1); 1×64: a paged attention backend's
 * common page; 8×64: DCP 8 widens the page to 512 slots, where the seam bugs lived.
 */
export const kGeometries: readonly Geometry[] = [
  { dcp: 1, kernelPage: 1 },
  { dcp: 1, kernelPage: 64 },
  { dcp: 8, kernelPage: 64 },
];

/** `--quick` keeps the two ends: the token allocator and the widest page. */
export const kGeometriesQuick: readonly Geometry[] = [kGeometries[0] as Geometry, kGeometries[2] as Geometry];

/** The allocator page in slots. */
export function pageSizeOf(g: Geometry): number {
  return g.dcp * g.kernelPage;
}
