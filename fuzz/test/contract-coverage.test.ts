import { describe, expect, it } from 'vitest';
import { kAllocatorMutants } from '../mutants/allocator/catalogue.js';
import { kRuleMutants, type RuleMutant } from '../mutants/contract/catalogue.js';
import { kHostContractMutants } from '../mutants/host-pool/contract-catalogue.js';
import { kContractRules } from '../src/contract/find-rule.js';
import { validateHostPoolProvider, validateProvider } from '../src/validate/validate-provider.js';

/** The budget each planted bug gets: the bound on detection. */
const kDetectMsMax = 10_000;

/** The rule the validator names for each engine-derived allocator mutant (checked below). */
const kAllocatorMutantRules: Readonly<Record<string, readonly string[]>> = {
  'segment-unaligned-start': ['A22'],
  'append-instead-of-prepend': ['A19'],
  'clear-from-page-zero': ['A6'],
  'extend-tail-first-page': ['A6'],
  'extend-part1-unbounded': ['A8'],
  'no-merge-when-short': ['A10'],
  'capacity-after-slicing': ['A11'],
  'available-counts-queued': ['A13'],
  'nested-begin-resets': ['A23'],
  'create-skips-dcp-divisibility': ['A2'],
  'size-ceil-pages': ['A3'],
  'free-ignores-outside-pool': ['A24'],
  'group-end-not-atomic': ['A17'],
  'free-without-unique': ['A12'],
  'group-keeps-reps': ['A16'],
};

/** Seeds at which a mutant that several rules can catch is caught by the one listed (runs are deterministic per seed). */
const kSeedOf: Readonly<Record<string, number>> = { 'group-keeps-reps': 2 };

/** Every planted bug with the rules it may be reported under. */
const kPlanted: readonly (RuleMutant & { readonly rules: readonly string[] })[] = [
  ...kRuleMutants.map((m) => ({ ...m, rules: [m.rule] })),
  ...kAllocatorMutants.filter((m) => m.name in kAllocatorMutantRules).map((m) => ({ pool: 'allocator' as const, rule: (kAllocatorMutantRules[m.name] as string[])[0] as string, rules: kAllocatorMutantRules[m.name] as string[], provider: m.provider, mode: m.mode })),
  ...kHostContractMutants.map((m) => ({ pool: 'host' as const, rule: m.rule, rules: [m.rule], provider: { name: m.name, create: m.create }, mode: m.mode })),
];

describe('fuzz:contract,coverage', () => {
  it('has a planted bug for every rule of CONTRACT.md', () => {
    const planted = new Set(kPlanted.map((m) => m.rule));
    const missing = kContractRules.map((r) => r.id).filter((id) => !planted.has(id));
    expect(missing).toEqual([]);
  });

  it.each(kPlanted.map((m) => [`${m.rule} ${m.provider.name}`, m] as const))('reports %s under its rule', (_title, m) => {
    const options = { seed: kSeedOf[m.provider.name] ?? 1, numRuns: Number.MAX_SAFE_INTEGER, timeLimitMs: kDetectMsMax };
    const result = m.pool === 'host' ? validateHostPoolProvider(m.provider, m.mode, options) : validateProvider(m.provider, m.mode, options);
    expect(result.verdict, result.text || 'survived').toBe('violation');
    expect(m.rules, result.text).toContain(result.report.failure?.contractRule);
  });
});
