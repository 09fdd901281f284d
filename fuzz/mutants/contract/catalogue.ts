/**
 * Planted bugs that break one rule of CONTRACT.md each, for the rules the engine-derived mutants
 * (`../allocator/`, `../host-pool/`) leave unbroken: with them every rule has a planted bug the
 * validator must report under that rule (`test/contract-coverage.test.ts`).
 */
import { plainReferenceProvider, type AllocatorConfig, type AllocatorProvider, type PageAllocator } from '@kvfuzz/allocator-core';
import { HostSlotPool, type HostPool, type HostPoolProvider, type HostSlotPoolConfig } from '@kvfuzz/host-pool';
import {
  AcceptsNegativeAlloc,
  AllocPagesSwapped,
  ClearIgnored,
  DecodeSkipsASlot,
  ExtendTruncatesBatch,
  FreeDropsPages,
  LastLocUnchecked,
  PlainArrayAlloc,
  RefusesEmptyAlloc,
  RestoreIgnored,
  WrongPageSize,
} from './allocator-rule-mutants.js';
import { HostAvailableOffByOne, HostClearIgnored, HostFreeCountShort, HostNullWhenExact, HostPlainArray, HostRefusesEmptyAlloc, HostSlotTwice } from './host-rule-mutants.js';

/** A planted bug and the one rule it breaks. */
export type RuleMutant =
  | { readonly pool: 'allocator'; readonly rule: string; readonly provider: AllocatorProvider; readonly mode: 'contract' | 'exact' }
  | { readonly pool: 'host'; readonly rule: string; readonly provider: HostPoolProvider; readonly mode: 'contract' | 'exact' };

function allocator(rule: string, name: string, wrap: (inner: PageAllocator) => PageAllocator): RuleMutant {
  return { pool: 'allocator', rule, mode: 'contract', provider: { name, create: (config: AllocatorConfig) => wrap(plainReferenceProvider.create(config)) } };
}

function host(rule: string, name: string, wrap: (inner: HostPool) => HostPool): RuleMutant {
  return { pool: 'host', rule, mode: 'contract', provider: { name, create: (config: HostSlotPoolConfig) => wrap(new HostSlotPool(config)) } };
}

/**
 * A4: a dcpSize that is not a power of two is accepted and rounded down to one, so the allocator
 * reports another page size than kernelPageSize × dcpSize.
 */
function dcpRoundedDown(config: AllocatorConfig): PageAllocator {
  const dcpSize = config.dcpSize ?? 1;
  if (!Number.isInteger(dcpSize) || dcpSize < 1 || (dcpSize & (dcpSize - 1)) === 0) return plainReferenceProvider.create(config);
  const rounded = 2 ** Math.floor(Math.log2(dcpSize));
  const pageSize = (config.kernelPageSize ?? 1) * rounded;
  return plainReferenceProvider.create({ ...config, dcpSize: rounded, sizeTokens: Math.max(pageSize, config.sizeTokens - (config.sizeTokens % pageSize)) });
}

export const kRuleMutants: readonly RuleMutant[] = [
  allocator('A1', 'wrong-page-size', (a) => new WrongPageSize(a)),
  { pool: 'allocator', rule: 'A4', mode: 'contract', provider: { name: 'dcp-rounded-down', create: dcpRoundedDown } },
  allocator('A5', 'plain-array-alloc', (a) => new PlainArrayAlloc(a)),
  allocator('A7', 'alloc-page-reversed', (a) => new AllocPagesSwapped(a)),
  allocator('A9', 'decode-skips-a-slot', (a) => new DecodeSkipsASlot(a)),
  allocator('A12', 'free-drops-pages', (a) => new FreeDropsPages(a)),
  allocator('A14', 'restore-ignored', (a) => new RestoreIgnored(a)),
  allocator('A15', 'clear-ignored', (a) => new ClearIgnored(a)),
  allocator('A18', 'refuses-empty-alloc', (a) => new RefusesEmptyAlloc(a)),
  allocator('A20', 'accepts-negative-alloc', (a) => new AcceptsNegativeAlloc(a)),
  allocator('A21', 'extend-truncates-batch', (a) => new ExtendTruncatesBatch(a)),
  allocator('A25', 'lastloc-unchecked', (a) => new LastLocUnchecked(a)),
  host('H3', 'host-plain-array', (p) => new HostPlainArray(p)),
  host('H4', 'host-slot-twice', (p) => new HostSlotTwice(p)),
  host('H5', 'host-null-when-exact', (p) => new HostNullWhenExact(p)),
  host('H6', 'host-available-off-by-one', (p) => new HostAvailableOffByOne(p)),
  host('H7', 'host-free-count-short', (p) => new HostFreeCountShort(p)),
  host('H8', 'host-clear-ignored', (p) => new HostClearIgnored(p)),
  host('H10', 'host-refuses-empty-alloc', (p) => new HostRefusesEmptyAlloc(p)),
];
