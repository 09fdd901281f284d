import { LedgerViolation } from '../../src/ledger/ledger-violation.js';

/** The rule of the LedgerViolation `f` throws, or 'none' when it returns; any other error passes through. */
export function violationRuleOf(f: () => void): string {
  try {
    f();
  } catch (e) {
    if (e instanceof LedgerViolation) return e.rule;
    throw e;
  }
  return 'none';
}
