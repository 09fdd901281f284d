import { kAllocatorRules } from './allocator-rules.js';
import type { ContractRule } from './contract-rule.js';
import { kHostRules } from './host-rules.js';

/** Every rule of CONTRACT.md, allocator then host pool. */
export const kContractRules: readonly ContractRule[] = [...kAllocatorRules, ...kHostRules];

/** The rule with this id, or undefined. */
export function findRule(id: string): ContractRule | undefined {
  return kContractRules.find((r) => r.id === id);
}
