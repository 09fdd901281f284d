import { create } from 'xmlbuilder2';
import type { TargetCampaign } from '../campaign/campaign.js';
import { findRule } from '../contract/find-rule.js';
import { inertText } from '../text/inert-text.js';

/** Characters XML 1.0 cannot carry at all, even as references; shown as escapes instead. */
const kXmlForbidden = /[\ufffe\uffff]/g;

/** Text for an XML document: what a terminal would get (control characters escaped), and nothing XML forbids. */
export function xmlText(text: string): string {
  return inertText(text).replace(kXmlForbidden, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/**
 * JUnit XML for a campaign: one test suite per target, one test case per target campaign. The
 * document is built with xmlbuilder2 (escaping) in well-formed mode (it throws rather than write a
 * character XML forbids); failure text is made inert first.
 */
export function junitReport(campaigns: readonly TargetCampaign[], seed: number, shard: string): string {
  const failures = campaigns.filter((c) => c.failure !== null).length;
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('testsuites', { name: 'kvfuzz', tests: String(campaigns.length), failures: String(failures) });
  for (const c of campaigns) {
    const name = xmlText(c.mutant === null ? c.target : `${c.target} × ${c.mutant}`);
    const seconds = (c.elapsedMs / 1000).toFixed(3);
    const suite = root.ele('testsuite', { name: `kvfuzz:${name}`, tests: '1', failures: c.failure === null ? '0' : '1', errors: '0', skipped: '0', time: seconds });
    const properties = suite.ele('properties');
    for (const [key, value] of [['seed', seed], ['shard', shard], ['runs', c.runs], ['commands', c.commands]] as const) properties.ele('property', { name: key, value: String(value) });
    const testCase = suite.ele('testcase', { classname: `kvfuzz.${xmlText(c.target)}`, name: `${name} campaign (${c.runs} runs, ${c.commands} commands)`, time: seconds });
    const failure = c.failure?.report.failure;
    if (c.failure !== null) {
      const rule = failure?.contractRule === null || failure?.contractRule === undefined ? undefined : findRule(failure.contractRule);
      const message = `${rule === undefined ? '' : `${rule.id} (${rule.title}): `}${failure?.message.split('\n')[0] ?? 'failed'}`;
      testCase.ele('failure', { message: xmlText(message), type: xmlText(rule?.id ?? failure?.rule ?? 'failure') }).txt(xmlText(c.failure.text));
    }
  }
  return `${root.end({ prettyPrint: true, wellFormed: true })}\n`;
}
