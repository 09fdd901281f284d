import type { ContractRule } from '../contract/contract-rule.js';
import { familyChecks, rulesOf, type RuleFamily } from '../contract/rule-families.js';
import type { ModelRunReport } from '../models/run-model.js';

/** What one family of a per-rule report did. */
export interface FamilyRun {
  readonly family: RuleFamily;
  readonly report: ModelRunReport<unknown>;
  /** The failure as text (the counterexample), empty when the family ran clean. */
  readonly text: string;
  /**
   * How often the family fed each rule's own inputs (a refusal, a choice), by rule id: a refusal
   * family whose input never came up checked nothing.
   */
  readonly fed: Readonly<Record<string, number>>;
  /** A process provider's exchange while the failure replayed (transcript lines), when there is one. */
  readonly transcript: readonly string[] | null;
}

/** One row of the report. */
export interface RuleVerdict {
  readonly id: string;
  readonly title: string;
  readonly level: ContractRule['level'];
  /**
   * `holds`: checked and never broken; `violated`: broken, with a counterexample;
   * `not-applicable`: never checked (an exact-mode rule in contract mode, or an input that never came up).
   */
  readonly status: 'holds' | 'violated' | 'not-applicable';
  /** Runs that checked the rule (for a rule with inputs of its own: times its input was fed). */
  readonly runs: number;
  /** The family that broke it, and its shrunk counterexample as text and program. */
  readonly counterexample?: { readonly family: string; readonly text: string; readonly program: readonly string[]; readonly geometry: unknown; readonly transcript: readonly string[] | null };
}

/**
 * The per-rule verdicts of a report from its families' runs. A rule is violated when a family's
 * failure names it (the first family in order keeps its counterexample); otherwise it holds when
 * some family checked it, and is not applicable when none did.
 */
export function ruleVerdicts(pool: 'allocator' | 'host', mode: 'contract' | 'exact', runs: readonly FamilyRun[]): RuleVerdict[] {
  return rulesOf(pool).map((rule): RuleVerdict => {
    const base = { id: rule.id, title: rule.title, level: rule.level };
    if (rule.mode === 'exact' && mode !== 'exact') return { ...base, status: 'not-applicable', runs: 0 };
    const checking = runs.filter((r) => familyChecks(r.family, rule));
    const count = rule.level === 'MUST' ? checking.reduce((n, r) => n + r.report.runs, 0) : checking.reduce((n, r) => n + (r.fed[rule.id] ?? 0), 0);
    const broken = runs.find((r) => r.report.failure?.contractRule === rule.id);
    if (broken !== undefined && broken.report.failure !== null) {
      const f = broken.report.failure;
      return { ...base, status: 'violated', runs: Math.max(count, 1), counterexample: { family: broken.family.name, text: broken.text, program: f.program, geometry: f.geometry, transcript: broken.transcript } };
    }
    return { ...base, status: count > 0 ? 'holds' : 'not-applicable', runs: count };
  });
}
