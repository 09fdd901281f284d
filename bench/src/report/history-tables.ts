/**
 * The history report's tables: the summary's verdict per case for the latest full run of
 * committed code (beside the full run before it), and for the newest record each fuzz target's
 * throughput and each mutant's time to detect, beside the previous record's value.
 *
 * @packageDocumentation
 */
import { chartOrder } from '../history/history-record.js';
import type { HistoryRatio, HistoryRecord } from '../history/types.js';
import { formatConfidence } from './bench-report.js';
import { kShortShaLength, recordKind } from './history-charts.js';

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

/** A record as a caption names it: short sha (`*` with uncommitted changes), mode, date. */
function recordLabel(r: HistoryRecord): string {
  return `${r.commit.sha.slice(0, kShortShaLength)}${r.commit.dirty ? '*' : ''} (${r.mode}, ${r.commit.date.slice(0, 10)})`;
}

/** The most of a commit subject the summary shows: a first line can run to a paragraph. */
const kSubjectCharsMax = 90;

function shortSubject(subject: string): string {
  return subject.length <= kSubjectCharsMax ? subject : `${subject.slice(0, kSubjectCharsMax - 1).trimEnd()}…`;
}

/** The summary: the run it reads, its one-line answer, and the verdict table. */
export interface SummaryTable {
  /** The latest full run of committed code; else the latest full run; else the latest record; null for an empty history. */
  readonly record: HistoryRecord | null;
  /** The answer in one line of HTML: the run and its gated verdict counts. */
  readonly answer: string;
  /** The verdict table ('' for an empty history). */
  readonly table: string;
}

/** Gated failures first, then undecided, then passes, then the informational ratios. */
function summaryOrder(r: HistoryRatio): number {
  if (r.informational === true) return 3;
  return r.verdict === 'fail' ? 0 : r.verdict === 'inconclusive' ? 1 : 2;
}

/** The summary of a history: verdict per case at the latest full run, beside the full run before it. */
export function summaryTable(history: readonly HistoryRecord[]): SummaryTable {
  const records = chartOrder(history);
  const fullClean = records.filter((r) => recordKind(r) === 'full');
  const record = fullClean.at(-1) ?? records.filter((r) => r.mode === 'full').at(-1) ?? records.at(-1) ?? null;
  if (record === null) return { record, answer: 'No run recorded yet.', table: '' };
  const kindNote = recordKind(record) === 'full' ? '' : record.mode === 'full' ? ' — no full run of committed code is recorded; this one had uncommitted changes' : ' — no full run is recorded; this is the latest quick run';
  const before = fullClean.filter((r) => records.indexOf(r) < records.indexOf(record)).at(-1) ?? null;
  const gated = record.ratios.filter((r) => r.informational !== true);
  const count = (v: string): number => gated.filter((r) => r.verdict === v).length;
  const informational = record.ratios.length - gated.length;
  const answer =
    `Latest full run: <b>${escapeHtml(recordLabel(record))}</b> “${escapeHtml(shortSubject(record.commit.subject))}”${escapeHtml(kindNote)} — ` +
    `<span class="verdict-pass">${count('pass')} pass</span>, <span class="verdict-fail">${count('fail')} fail</span>, <span class="verdict-inconclusive">${count('inconclusive')} inconclusive</span> ` +
    `of ${gated.length} gated ${gated.length === 1 ? 'case' : 'cases'} at margin ${record.margin}${informational > 0 ? `; ${informational} informational` : ''}.`;
  const rows = [...record.ratios]
    .map((r, i) => ({ r, i }))
    .sort((a, b) => summaryOrder(a.r) - summaryOrder(b.r) || a.i - b.i)
    .map(({ r }) => {
      const prior = before?.ratios.find((x) => x.name === r.name) ?? null;
      return [
        `<span class="num">${escapeHtml(r.name)}</span>`,
        r.informational === true ? 'info' : 'gated',
        `<span class="num">${r.ratio.toFixed(3)} [${r.ciLow.toFixed(3)}, ${r.ciHigh.toFixed(3)}]</span>`,
        verdictCell(r.verdict),
        prior === null ? '—' : `${prior.ratio.toFixed(3)} ${verdictCell(prior.verdict)}`,
        change(r.ratio, prior?.ratio ?? null),
      ];
    });
  const verdicts = table(
    `Verdict per case at ${recordLabel(record)}: checks-on / checks-off, CI at ${formatConfidence(record.confidence)} (the first look's), margin ${record.margin}${before === null ? '' : `; previous: the full run at ${recordLabel(before)}`}`,
    ['bench', 'gate', 'ratio [CI]', 'verdict', 'previous full run', 'change'],
    rows,
  );
  return { record, answer, table: verdicts };
}

/** The latest values of the fuzz and detect sections as HTML tables; a section the newest record lacks is ''. */
export interface LatestTables {
  readonly fuzz: string;
  readonly detect: string;
}

/** The fuzz and detect tables of the newest record (both '' when the history is empty). */
export function latestTables(history: readonly HistoryRecord[]): LatestTables {
  const records = chartOrder(history);
  const latest = records.at(-1);
  const tables = { fuzz: '', detect: '' };
  if (latest === undefined) return tables;
  const older = records.slice(0, -1);
  const at = recordLabel(latest);
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
