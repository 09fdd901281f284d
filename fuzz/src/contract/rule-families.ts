import { kAllocatorRules } from './allocator-rules.js';
import type { ContractRule } from './contract-rule.js';
import { kHostRules } from './host-rules.js';

/**
 * One part of a per-rule report (`pnpm validate --report`): the valid traffic alone, or the valid
 * traffic plus the inputs of one rule that feeds inputs of its own (a MUST refuse or a MAY rule).
 * Each runs apart, so a violation in one does not hide the others.
 */
export interface RuleFamily {
  /** `valid`, or the id of the rule whose inputs it feeds. */
  readonly name: string;
  /** The rule whose inputs it adds to the valid traffic; null for the valid traffic alone. */
  readonly feeds: string | null;
}

/** The rules of a pool's contract. */
export function rulesOf(pool: 'allocator' | 'host'): readonly ContractRule[] {
  return pool === 'host' ? kHostRules : kAllocatorRules;
}

/** A rule whose inputs only its own family feeds: the refusals and the choices. */
export function feedsOwnInputs(rule: ContractRule): boolean {
  return rule.level !== 'MUST';
}

/** The families of a pool's report: the valid traffic, then one per rule that feeds its own inputs, in document order. */
export function familiesOf(pool: 'allocator' | 'host'): RuleFamily[] {
  return [{ name: 'valid', feeds: null }, ...rulesOf(pool).filter(feedsOwnInputs).map((r) => ({ name: r.id, feeds: r.id }))];
}

/** Whether a family's runs check a rule: the valid traffic's rules are checked in every family, the others in their own. */
export function familyChecks(family: RuleFamily, rule: ContractRule): boolean {
  return feedsOwnInputs(rule) ? family.feeds === rule.id : true;
}
