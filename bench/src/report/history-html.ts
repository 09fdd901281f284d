/**
 * The history report: one self-contained HTML file (uPlot, its stylesheet and licence, the page
 * script and the data all inlined; it opens from disk with no network). It leads with the answer:
 * the summary (the latest full run's verdict per case, and the verdict counts of every full run
 * over commits) is the page's first section; the per-metric charts follow. Once the charts are
 * drawn the page sets `document.body.dataset.chartsRendered` (see history-page.js).
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import type { HistoryRecord } from '../history/types.js';
import { historyCharts, type HistoryChartData } from './history-charts.js';
import { escapeHtml, latestTables, summaryTable } from './history-tables.js';
import { uplotAssets } from './uplot-assets.js';

/** What the page says about where its data came from. */
export interface HistoryHtmlInput {
  readonly records: readonly HistoryRecord[];
  /** The history file, as the page names it. */
  readonly source: string;
  readonly generatedAt: Date;
}

/** The built page and the chart data it carries (for `--json` and the tests). */
export interface HistoryHtml {
  readonly html: string;
  readonly data: HistoryChartData;
}

/** JSON safe inside `<script type="application/json">`: no `</script>`, no `<!--`. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** Code inlined in a `<script>` element must not close it early. */
function inlineScript(code: string, what: string): string {
  if (/<\/script/i.test(code)) throw new Error(`${what} contains "</script", which would end its inline <script> element early`);
  return code;
}

const kStyle = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d1d1f; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; } h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
.lede { color: #555; max-width: 60rem; } .answer { font-size: 1.05rem; max-width: 70rem; }
#summary { display: grid; grid-template-columns: minmax(580px, max-content) 1fr; gap: 1rem; align-items: start; }
#summary > header { grid-column: 1 / -1; }
.steps { color: #555; margin: .2rem 0 .8rem; padding-left: 1.2rem; } .steps li { margin: 0; }
.num { white-space: nowrap; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(580px, 1fr)); gap: 1rem; }
figure.chart { margin: 0; padding: .4rem; border: 1px solid #ddd; border-radius: 4px; }
.u-title { font-size: 13px !important; font-weight: 600 !important; }
table { border-collapse: collapse; margin: 1rem 0; } caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { border-bottom: 1px solid #e4e4e4; padding: .2rem .6rem; text-align: left; font-variant-numeric: tabular-nums; }
.verdict-pass { color: #16794a; } .verdict-fail { color: #c81e1e; font-weight: 600; } .verdict-inconclusive { color: #8a6d00; }
`;

/**
 * Builds the report page.
 *
 * @param input - the history's records (any order), its path as shown, the build time
 */
export function historyHtml(input: HistoryHtmlInput): HistoryHtml {
  const data = historyCharts(input.records);
  const uplot = uplotAssets();
  const page = readFileSync(new URL('./history-page.js', import.meta.url), 'utf8');
  const commits = new Set(data.commits.map((c) => c.sha)).size;
  const count = (group: string): number => data.charts.filter((c) => c.group === group).length;
  const tables = latestTables(input.records);
  const summary = summaryTable(input.records);
  const section = (group: 'ratio' | 'fuzz' | 'detect', heading: string, lede: string, extra = ''): string =>
    `<section id="section-${group}">\n<h2>${heading} <small>(${count(group)} ${count(group) === 1 ? 'chart' : 'charts'})</small></h2>\n<p class="lede">${lede}</p>\n${extra}` +
    `${group === 'ratio' || tables[group] === '' ? '' : `<details open><summary>Latest values</summary>\n${tables[group]}\n</details>\n`}<div class="charts" id="charts-${group}"></div>\n</section>`;
  const steps =
    data.steps.length === 0
      ? ''
      : `<p class="lede">Numbered grey dashed lines mark where the way of measuring changed, so a ratio may step there for reasons that are not the code:</p>\n<ol class="steps">${data.steps
          .map((s) => `<li>${escapeHtml(s.label)}, from ${escapeHtml(data.commits[s.index]?.short ?? '?')}</li>`)
          .join('')}</ol>\n`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kvfuzz bench history</title>
<meta name="generator" content="pnpm bench:history report">
<style>${uplot.css}</style>
<style>${kStyle}</style>
</head>
<body data-charts-expected="${data.charts.length + 1}">
<section id="summary">
<header>
<h1>kvfuzz bench history</h1>
<p class="answer">${summary.answer}</p>
</header>
<div>${summary.table}</div>
<div class="charts" id="charts-summary"></div>
</section>
<p class="lede">${input.records.length} ${input.records.length === 1 ? 'record' : 'records'} of ${commits} ${commits === 1 ? 'commit' : 'commits'} from <code>${escapeHtml(input.source)}</code>, generated ${escapeHtml(input.generatedAt.toISOString())}.
Commits are in commit-date order. Full runs of committed code are the line (and set the scale); quick runs (grey diamonds, <code>q</code> on the axis) and records taken with uncommitted changes (orange rings, <code>*</code>) are marks of their own. Hover a chart for the values at a commit.</p>
${section('ratio', 'Checks ratios', 'Each in-line check\'s cost: time with checks on / time with checks off, with its confidence interval (whiskers and band). The dashed red line is the non-inferiority margin; a check passes when its whole interval stays below it. Charts titled <i>informational</i> never gate.', steps)}
${section('fuzz', 'Fuzz throughput', 'Model commands per second of a time-boxed <code>pnpm fuzz</code> campaign against the reference implementations, over all workers.')}
${section('detect', 'Time to detect each planted mutant', 'Milliseconds from the start of a mutant\'s campaign to its first failing run (<code>pnpm fuzz --kill-table</code>). A red cross at the budget marks a mutant that survived.')}
<script type="application/json" id="history-data">${scriptJson(data)}</script>
<!-- uPlot ${escapeHtml(uplot.version)}, inlined from node_modules/uplot. Its licence:
${uplot.license.replace(/--/g, '- -')}
-->
<script>${inlineScript(uplot.script, 'uPlot')}</script>
<script>${inlineScript(page, 'history-page.js')}</script>
</body>
</html>
`;
  return { html, data };
}
