import fc from 'fast-check';
import { z } from 'zod';
import { dataIntSchema } from '../../command-bounds.js';
import type { LiveRequest, PrefixModel } from '../prefix-model-state.js';

/**
 * A component cap drawn from the cap grid, resolved against the request when it finishes:
 * `none` (no cap), `zero` (nothing cacheable, e.g. no Mamba track yet), `page` (n allocator pages),
 * `kernel` (on the KERNEL grid, inside an allocator page when DCP > 1 — the seam),
 * `belowProtected` (under the tree-owned prefix), `aboveCommitted` (no truncation). Its printed
 * form is its data: `{ cap: 'kernel', n: 2 }`.
 */
export interface CapSpec {
  readonly cap: 'none' | 'zero' | 'page' | 'kernel' | 'belowProtected' | 'aboveCommitted';
  readonly n: number;
}

/** The cap kinds as drawn: the kernel grid three times as often, since it holds the seam. */
export const kCapKinds: readonly CapSpec['cap'][] = ['none', 'zero', 'page', 'kernel', 'kernel', 'kernel', 'belowProtected', 'aboveCommitted'];

export const capArbitrary: fc.Arbitrary<CapSpec> = fc.record({ cap: fc.constantFrom(...kCapKinds), n: fc.integer({ min: 0, max: 31 }) });

export const capSchema = z.strictObject({ cap: z.enum([...new Set(kCapKinds)] as [CapSpec['cap'], ...CapSpec['cap'][]]), n: dataIntSchema });

export function resolveCap(cap: CapSpec, lr: LiveRequest, m: PrefixModel): number | null {
  const ps = m.pageSize;
  const kernel = m.geometry.kernelPageSize;
  const kernelsPerPage = m.geometry.dcpSize;
  switch (cap.cap) {
    case 'none':
      return null;
    case 'zero':
      return 0;
    case 'page':
      return (cap.n % 4) * ps;
    case 'kernel': {
      // a whole pages plus b kernel pages, b in [1, dcp): never on the allocator page when dcp > 1.
      const a = cap.n % 4;
      const b = kernelsPerPage > 1 ? 1 + (Math.floor(cap.n / 4) % (kernelsPerPage - 1)) : 0;
      return a * ps + b * kernel;
    }
    case 'belowProtected':
      return Math.max(0, lr.protectedLen - (1 + (cap.n % 3)) * kernel);
    case 'aboveCommitted':
      return lr.committed + cap.n;
  }
}
