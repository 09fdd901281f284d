/**
 * The history report's tables of latest values: for the newest record, each ratio with its
 * interval and verdict, each fuzz target's throughput, each mutant's time to detect — each beside
 * the previous record's value of the same metric.
 *
 * @packageDocumentation
 */
import { chartOrder } from '../history/history-record.js';
import type { HistoryRecord } from '../history/types.js';
import { kShortShaLength } from './history-charts.js';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function table(caption: string, header: readonly string[], rows: readonly (readonly string[])[]): string {
  const th = header.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n');
  return `<table><caption>${escapeHtml(caption)}</caption>\n<thead><tr>${th}</tr></thead>\n<tbody>\n${tr}\n</tbody></table>`;
}

/** The latest value of a metric before the newest record, or null. */
function previous<T>(older: readonly HistoryRecord[], pick: (r: HistoryRecord) => T | undefined): T | null {
  for (const r of [...older].reverse()) {
    const v = pick(r);
    if (v !== undefined) return v;
  }
  return null;
}

function change(now: number, before: number | null): string {
  if (before === null) return '—';
  const pct = (now / before - 1) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}

function verdictCell(verdict: string): string {
  return `<span class="verdict-${escapeHtml(verdict)}">${escapeHtml(verdict)}</span>`;
}

/** The latest values as HTML tables, one per section; a section the newest record lacks is ''. */
export interface LatestTables {
  readonly ratio: string;
  readonly fuzz: string;
  readonly detect: string;
}

/** The three tables of the newest record (all '' when the history is empty). */
export function latestTables(history: readonly HistoryRecord[]): LatestTables {
  const records = chartOrder(history);
  const latest = records.at(-1);
  const tables = { ratio: '', fuzz: '', detect: '' };
  if (latest === undefined) return tables;
  const older = records.slice(0, -1);
  const at = `${latest.commit.sha.slice(0, kShortShaLength)}${latest.commit.dirty ? '*' : ''} (${latest.mode}, a child pair per ${latest.isolation ?? 'file'}${latest.layout === undefined ? '' : `, ${latest.layout}`}, ${latest.commit.date.slice(0, 10)})`;
  tables.ratio = table(
    `Checks ratios at ${at}: checks-on / checks-off, ${Math.round(latest.confidence * 100)}% CI, margin ${latest.margin}`,
    ['bench', 'ratio', 'CI', 'verdict', 'previous', 'change'],
    latest.ratios.map((r) => {
      const before = previous(older, (o) => o.ratios.find((x) => x.name === r.name)?.ratio);
      return [escapeHtml(r.name), r.ratio.toFixed(3), `[${r.ciLow.toFixed(3)}, ${r.ciHigh.toFixed(3)}]`, verdictCell(r.verdict), before === null ? '—' : before.toFixed(3), change(r.ratio, before)];
    }),
  );
  if (latest.fuzz !== null) {
    tables.fuzz = table(
      `Fuzz throughput at ${at}: ${latest.fuzz.timeSeconds}s campaign, ${latest.fuzz.workers} workers`,
      ['target', 'commands / s', 'runs / s', 'previous commands / s', 'change'],
      latest.fuzz.targets.map((t) => {
        const before = previous(older, (o) => o.fuzz?.targets.find((x) => x.target === t.target)?.commandsPerSecond);
        return [escapeHtml(t.target) + (t.failed ? ' (failed)' : ''), t.commandsPerSecond.toFixed(0), t.runsPerSecond.toFixed(1), before === null ? '—' : before.toFixed(0), change(t.commandsPerSecond, before)];
      }),
    );
  }
  if (latest.killTable !== null) {
    const budgetMs = latest.killTable.timePerMutantSeconds * 1000;
    tables.detect = table(
      `Time to detect each planted mutant at ${at}: budget ${latest.killTable.timePerMutantSeconds}s each`,
      ['mutant', 'model', 'ms to detect', 'previous ms', 'change'],
      latest.killTable.mutants.map((m) => {
        const before = previous(older, (o) => o.killTable?.mutants.find((x) => x.mutant === m.mutant)?.detectMs ?? undefined);
        return [
          escapeHtml(m.mutant),
          escapeHtml(m.target),
          m.detectMs === null ? `<span class="verdict-fail">SURVIVED ${budgetMs} ms</span>` : String(m.detectMs),
          before === null ? '—' : String(before),
          m.detectMs === null || before === 0 ? '—' : change(m.detectMs, before),
        ];
      }),
    );
  }
  return tables;
}
