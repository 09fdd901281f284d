import type { TargetCampaign } from '../campaign/campaign.js';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/** JUnit XML for a campaign: one test suite per target, one test case per target campaign. */
export function junitReport(campaigns: readonly TargetCampaign[], seed: number, shard: string): string {
  const suites = campaigns.map((c) => {
    const name = c.mutant === null ? c.target : `${c.target} × ${c.mutant}`;
    const seconds = (c.elapsedMs / 1000).toFixed(3);
    const body =
      c.failure === null
        ? ''
        : `\n      <failure message="${escapeXml(c.failure.report.failure?.message.split('\n')[0] ?? 'failed')}" type="${escapeXml(c.failure.report.failure?.rule ?? 'failure')}">${escapeXml(c.failure.text)}</failure>`;
    return (
      `  <testsuite name="kvfuzz:${escapeXml(name)}" tests="1" failures="${c.failure === null ? 0 : 1}" errors="0" skipped="0" time="${seconds}">\n` +
      `    <properties><property name="seed" value="${seed}"/><property name="shard" value="${shard}"/><property name="runs" value="${c.runs}"/><property name="commands" value="${c.commands}"/></properties>\n` +
      `    <testcase classname="kvfuzz.${escapeXml(c.target)}" name="${escapeXml(name)} campaign (${c.runs} runs, ${c.commands} commands)" time="${seconds}">${body}${body === '' ? '' : '\n    '}</testcase>\n` +
      `  </testsuite>`
    );
  });
  const failures = campaigns.filter((c) => c.failure !== null).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="kvfuzz" tests="${campaigns.length}" failures="${failures}">\n${suites.join('\n')}\n</testsuites>\n`;
}
