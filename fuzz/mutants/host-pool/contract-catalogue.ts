import type { HostPool, HostSlotPoolConfig } from '@kvfuzz/host-pool';
import type { HostRuleId } from '../../src/contract/host-rules.js';
import {
  HostPoolAcceptsNegativeAlloc,
  HostPoolIgnoresSlotPastEnd,
  HostPoolRefusalUnmarks,
  HostPoolRepeatCountsTwice,
  HostPoolTruncatesSize,
  HostPoolWrapsNegativeSlot,
} from './contract-mutants.js';
import { HostPoolFirstFit, HostPoolNoExtraPage, HostPoolUnchecked } from './host-mutants.js';

/** A planted bug in a host pool that `pnpm validate --pool host` must catch, and the rule it breaks. */
export interface HostContractMutant {
  readonly name: string;
  readonly mechanism: string;
  readonly create: (config: HostSlotPoolConfig) => HostPool;
  /** The mode that sees it: exact for a bug in the order of slots only. */
  readonly mode: 'contract' | 'exact';
  /** The CONTRACT.md rule the validator names when it catches it. */
  readonly rule: HostRuleId;
}

/**
 * The host contract model's kill table: the host tier's three host pool bugs (unchecked, first-fit,
 * no extra page; shared with the two-tier model's table) and one bug per input the contract says
 * must be refused.
 */
export const kHostContractMutants: readonly HostContractMutant[] = [
  { name: 'host-pool-unchecked', mechanism: 'HostKVCache without the slot_used checks: a free slot given back is accepted', create: (c) => new HostPoolUnchecked(c), mode: 'contract', rule: 'H13' },
  { name: 'host-pool-first-fit', mechanism: 'host alloc first-fit instead of a contiguous run', create: (c) => new HostPoolFirstFit(c), mode: 'exact', rule: 'H11' },
  { name: 'host-pool-no-extra-page', mechanism: 'host pool size without the extra page', create: (c) => new HostPoolNoExtraPage(c), mode: 'contract', rule: 'H1' },
  { name: 'host-pool-repeat-counts-twice', mechanism: 'a held slot named twice in one free passes the used check and is counted twice', create: (c) => new HostPoolRepeatCountsTwice(c), mode: 'contract', rule: 'H13' },
  { name: 'host-pool-wraps-negative-slot', mechanism: 'free of a negative slot s gives back slot size + s (negative indexing)', create: (c) => new HostPoolWrapsNegativeSlot(c), mode: 'contract', rule: 'H13' },
  { name: 'host-pool-ignores-slot-past-end', mechanism: 'free drops slots at or past size and counts them as given back', create: (c) => new HostPoolIgnoresSlotPastEnd(c), mode: 'contract', rule: 'H13' },
  { name: 'host-pool-accepts-negative-alloc', mechanism: 'alloc of a negative page multiple hands out all but the last |n| free slots', create: (c) => new HostPoolAcceptsNegativeAlloc(c), mode: 'contract', rule: 'H12' },
  { name: 'host-pool-truncates-size', mechanism: 'create truncates a negative or fractional sizeTokens instead of refusing it', create: (c) => new HostPoolTruncatesSize(c), mode: 'contract', rule: 'H2' },
  { name: 'host-pool-refusal-unmarks', mechanism: 'a refused free leaves the held slots it named before the bad one marked free', create: (c) => new HostPoolRefusalUnmarks(c), mode: 'contract', rule: 'H9' },
];

export function findHostContractMutant(name: string): HostContractMutant | undefined {
  return kHostContractMutants.find((m) => m.name === name);
}
