import { create } from 'xmlbuilder2';
import { formatTable } from '../cli/format-table.js';
import { xmlText } from '../cli/junit-report.js';
import { inertLine, inertText } from '../text/inert-text.js';
import type { RuleVerdict } from './rule-report.js';

/** Longest statement shown in the table (characters): every statement of CONTRACT.md fits. */
const kStatementCharsMax = 400;

/** The report as a table, then each violated rule's counterexample. */
export function formatRuleReport(verdicts: readonly RuleVerdict[]): string {
  const rows = verdicts.map((v) => [v.id, v.status, v.runs, v.level, inertLine(v.title, kStatementCharsMax)]);
  const table = formatTable(['rule', 'status', 'runs', 'level', 'statement (CONTRACT.md)'], rows);
  const broken = verdicts.filter((v) => v.counterexample !== undefined);
  const details = broken.map((v) => {
    const where = v.counterexample?.family === 'valid' ? 'valid traffic' : `${v.counterexample?.family} inputs`;
    const transcript = v.counterexample?.transcript ?? null;
    const exchange = transcript === null ? '' : `\n  transcript (→ sent, ← replied):\n${transcript.map((line) => `    ${line}`).join('\n')}`;
    return `${v.id} violated (in the ${where}):\n${inertText(v.counterexample?.text ?? '')}${exchange}`;
  });
  return [table, ...details].join('\n\n');
}

/** The report as JUnit XML: one test case per rule, a failure for a violated rule, skipped when not applicable. */
export function ruleReportJunit(verdicts: readonly RuleVerdict[], provider: string, seconds: number): string {
  const failures = verdicts.filter((v) => v.status === 'violated').length;
  const skipped = verdicts.filter((v) => v.status === 'not-applicable').length;
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('testsuites', { name: 'kvfuzz validate', tests: String(verdicts.length), failures: String(failures) });
  const suite = root.ele('testsuite', { name: `kvfuzz:validate ${xmlText(provider)}`, tests: String(verdicts.length), failures: String(failures), errors: '0', skipped: String(skipped), time: seconds.toFixed(3) });
  for (const v of verdicts) {
    const testCase = suite.ele('testcase', { classname: 'kvfuzz.contract', name: `${v.id} ${xmlText(v.title)}` });
    if (v.status === 'violated') testCase.ele('failure', { message: `${v.id}: ${xmlText(v.title)}`, type: v.id }).txt(xmlText(v.counterexample?.text ?? ''));
    else if (v.status === 'not-applicable') testCase.ele('skipped', { message: 'not applicable: never checked in this mode or run' });
  }
  return `${root.end({ prettyPrint: true, wellFormed: true })}\n`;
}
