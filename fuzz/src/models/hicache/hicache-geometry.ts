import fc from 'fast-check';
import { prefixGeometryArbitrary, type PrefixGeometry } from '../prefix-cache/geometry.js';

/** Write policies, as the host-pool package names them. */
export type WritePolicyName = 'write_through' | 'write_through_selective' | 'write_back';

/** A lifecycle geometry plus the host tier. */
export interface HiCacheGeometry extends PrefixGeometry {
  /** Requested host size, in device pages (the pool adds one page). */
  readonly hostPages: number;
  readonly writePolicy: WritePolicyName;
  /** The host pool's `slot_used` checks. */
  readonly hostChecks: boolean;
}

export function hiCacheGeometryArbitrary(fixed: Partial<HiCacheGeometry> = {}): fc.Arbitrary<HiCacheGeometry> {
  const either = <T>(value: T | undefined, arb: fc.Arbitrary<T>): fc.Arbitrary<T> => (value === undefined ? arb : fc.constant(value));
  return fc
    .tuple(
      prefixGeometryArbitrary({ ...fixed, finishPath: fixed.finishPath ?? 'unified' }),
      either(fixed.hostPages, fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 7, max: 48 }))),
      either(fixed.writePolicy, fc.constantFrom<WritePolicyName>('write_through', 'write_through_selective', 'write_back')),
      either(fixed.hostChecks, fc.constantFrom(true, true, false)),
    )
    .map(([g, hostPages, writePolicy, hostChecks]) => ({ ...g, hostPages, writePolicy, hostChecks }));
}

export function formatHiCacheGeometry(g: HiCacheGeometry): string {
  return `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize}, ${g.poolPages} device pages, host ${g.hostPages} (+1) pages, ${g.rowCount} rows, ${g.writePolicy}, hostChecks ${g.hostChecks}, needSort ${g.needSort}, checks ${g.checks}, policy ${g.evictionPolicy}, groupedFinish ${g.groupedFinish}`;
}
