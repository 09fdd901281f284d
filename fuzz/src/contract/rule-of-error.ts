import { LedgerViolation } from '../ledger/ledger-violation.js';
import { ProviderRejection } from '../validate/errors.js';
import type { AllocatorRuleId } from './allocator-rules.js';
import type { HostRuleId } from './host-rules.js';

/** The contract rule of each ledger law whose rule does not depend on the call that broke it. */
const kAllocatorRuleOfLaw: Readonly<Record<string, AllocatorRuleId>> = {
  'return-type': 'A5',
  'index-int32': 'A5',
  geometry: 'A1',
  'page-range': 'A6',
  'unique-output': 'A6',
  'double-alloc': 'A6',
  capacity: 'A10',
  leak: 'A16',
  drain: 'A16',
  'exactly-once': 'A16',
  'rejected-changed-state': 'A17',
  'rejected-valid-call': 'A18',
  exact: 'A19',
};

const kHostRuleOfLaw: Readonly<Record<string, HostRuleId>> = {
  'return-type': 'H3',
  'index-int32': 'H3',
  geometry: 'H1',
  'host-size': 'H1',
  'slot-range': 'H4',
  'output-length': 'H4',
  'page-range': 'H4',
  'unique-output': 'H4',
  'double-alloc': 'H4',
  capacity: 'H5',
  'available-size': 'H6',
  'free-count': 'H7',
  leak: 'H6',
  'exactly-once': 'H6',
  'rejected-changed-state': 'H9',
  'rejected-valid-call': 'H10',
  exact: 'H11',
};

/**
 * The CONTRACT.md rule a failure of the allocator or host pool model broke, or null when it is not
 * a provider's (the model's own consistency checks). A violation that names its rule keeps it; a
 * provider's refusal of a valid call is A18 / H10.
 */
export function ruleOfError(pool: 'allocator' | 'host', error: unknown): string | null {
  if (error instanceof LedgerViolation) return error.contractRule ?? (pool === 'host' ? kHostRuleOfLaw : kAllocatorRuleOfLaw)[error.rule] ?? null;
  if (error instanceof ProviderRejection) return pool === 'host' ? 'H10' : 'A18';
  // An in-process implementation's own typed refusal (allocator-core's KvfuzzError codes) of a valid call.
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  if (typeof code === 'string' && code.startsWith('KVFUZZ_') && code !== 'KVFUZZ_PROVIDER_FAULT') return pool === 'host' ? 'H10' : 'A18';
  return null;
}
