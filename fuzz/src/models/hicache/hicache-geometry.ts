import fc from 'fast-check';
import { kWritePolicies } from '@kvfuzz/hicache';
import { z } from 'zod';
import { prefixGeometryArbitrary, prefixGeometryFields, type PrefixGeometry } from '../prefix-cache/geometry.js';
import { fixedOr } from '../geometry-draws.js';

/** Write policies, as the host-pool package names them. */
export type WritePolicyName = 'write_through' | 'write_through_selective' | 'write_back';

/** Largest host tier a run draws, in device pages: several times the smallest device pools. */
export const kHostPagesMax = 48;

/** A lifecycle geometry plus the host tier. */
export interface HiCacheGeometry extends PrefixGeometry {
  /** Requested host size, in device pages (the pool adds one page). */
  readonly hostPages: number;
  readonly writePolicy: WritePolicyName;
  /** The host pool's `slot_used` checks. */
  readonly hostChecks: boolean;
}

export function hiCacheGeometryArbitrary(fixed: Partial<HiCacheGeometry> = {}): fc.Arbitrary<HiCacheGeometry> {
  return fc
    .tuple(
      prefixGeometryArbitrary({ ...fixed, finishPath: fixed.finishPath ?? 'unified' }),
      fixedOr(fixed.hostPages, fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 7, max: kHostPagesMax }))),
      fixedOr(fixed.writePolicy, fc.constantFrom<WritePolicyName>('write_through', 'write_through_selective', 'write_back')),
      fixedOr(fixed.hostChecks, fc.constantFrom(true, true, false)),
    )
    .map(([g, hostPages, writePolicy, hostChecks]) => ({ ...g, hostPages, writePolicy, hostChecks }));
}

export function formatHiCacheGeometry(g: HiCacheGeometry): string {
  return `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize}, ${g.poolPages} device pages, host ${g.hostPages} (+1) pages, ${g.rowCount} rows, ${g.writePolicy}, hostChecks ${g.hostChecks}, needSort ${g.needSort}, checks ${g.checks}, policy ${g.evictionPolicy}, groupedFinish ${g.groupedFinish}`;
}

/** A stored two-tier geometry (a regression file's), checked against the ranges the model draws from. */
export const hiCacheGeometrySchema: z.ZodType<HiCacheGeometry> = z.strictObject({
  ...prefixGeometryFields,
  hostPages: z.int().min(1).max(kHostPagesMax),
  writePolicy: z.enum(kWritePolicies as [WritePolicyName, ...WritePolicyName[]]),
  hostChecks: z.boolean(),
});
