/**
 * What the history report draws: one chart per tracked metric over the recorded commits — each
 * checks ratio with its interval and the margin line, each fuzz target's commands per second, each
 * planted mutant's time to detect — as plain data the page script hands to uPlot.
 *
 * @packageDocumentation
 */
import { chartOrder } from '../history/history-record.js';
import type { HistoryRecord } from '../history/types.js';

/** Length of the sha a chart's axis shows. */
export const kShortShaLength = 7;

/** The three kinds of metric, one section of the page each. */
export type ChartGroup = 'ratio' | 'fuzz' | 'detect';

/** One x position: a recorded run. */
export interface ChartCommit {
  readonly sha: string;
  /** The first {@link kShortShaLength} hex digits. */
  readonly short: string;
  readonly date: string;
  readonly subject: string;
  readonly dirty: boolean;
  readonly mode: 'quick' | 'full';
  /** How the run isolated its cases (`file` for records from before the setting). */
  readonly isolation: 'case' | 'file';
  /** How its children loaded the code; null for records from before the setting. */
  readonly layout: 'bundle' | 'modules' | null;
}

/** One chart: a metric's value per commit (null where that run did not measure it). */
export interface ChartSpec {
  /** DOM id, e.g. `ratio-3`. */
  readonly id: string;
  readonly group: ChartGroup;
  /** The bench address, fuzz target or mutant name. */
  readonly metric: string;
  readonly title: string;
  readonly yLabel: string;
  readonly values: readonly (number | null)[];
  /** The interval's bounds per commit (ratios only). */
  readonly low: readonly (number | null)[] | null;
  readonly high: readonly (number | null)[] | null;
  /** A horizontal line: the margin `1 + margin` for ratios. */
  readonly reference: { readonly value: number; readonly label: string } | null;
  /** Mutants only: the budget (ms) at commits where the mutant survived it, else null. */
  readonly survived: readonly (number | null)[] | null;
  /** Non-null entries of `values`: the points the page must draw. */
  readonly points: number;
}

/**
 * A change of method between two neighbouring records: `index` is the first record measured the
 * new way. A ratio may step there for reasons that are not the code (bench/README.md, "Children"
 * and "What the bundle changes"), so every chart marks it.
 */
export interface MethodStep {
  readonly index: number;
  /** What changed, as the new way: e.g. `a child pair per case`, `layout modules`. */
  readonly label: string;
}

/** Everything the page draws. */
export interface HistoryChartData {
  readonly commits: readonly ChartCommit[];
  readonly charts: readonly ChartSpec[];
  readonly steps: readonly MethodStep[];
}

/** Where the isolation or the layout changes between neighbouring commits (a record without a layout ran the bundle). */
function methodSteps(commits: readonly ChartCommit[]): MethodStep[] {
  const steps: MethodStep[] = [];
  for (let i = 1; i < commits.length; i++) {
    const [before, now] = [commits[i - 1] as ChartCommit, commits[i] as ChartCommit];
    const changes: string[] = [];
    if (now.isolation !== before.isolation) changes.push(`a child pair per ${now.isolation}`);
    if ((now.layout ?? 'bundle') !== (before.layout ?? 'bundle')) changes.push(`layout ${now.layout ?? 'bundle'}`);
    if (changes.length > 0) steps.push({ index: i, label: changes.join(', ') });
  }
  return steps;
}

/** Every name `names(record)` yields, latest record's order first, then older-only names. */
function metricNames(records: readonly HistoryRecord[], names: (r: HistoryRecord) => readonly string[]): string[] {
  const seen = new Set<string>();
  for (const r of [...records].reverse()) for (const n of names(r)) seen.add(n);
  return [...seen];
}

function countPoints(values: readonly (number | null)[]): number {
  return values.filter((v) => v !== null).length;
}

/**
 * Builds the charts of a history.
 *
 * @param history - the records in any order; charted by commit date, then by when recorded
 */
export function historyCharts(history: readonly HistoryRecord[]): HistoryChartData {
  const records = chartOrder(history);
  const latest = records.at(-1);
  const commits = records.map((r) => ({ sha: r.commit.sha, short: r.commit.sha.slice(0, kShortShaLength), date: r.commit.date, subject: r.commit.subject, dirty: r.commit.dirty, mode: r.mode, isolation: r.isolation ?? 'file', layout: r.layout ?? null }));
  const charts: ChartSpec[] = [];

  const margin = latest?.margin ?? 0;
  metricNames(records, (r) => r.ratios.map((x) => x.name)).forEach((name, i) => {
    const at = records.map((r) => r.ratios.find((x) => x.name === name) ?? null);
    const values = at.map((x) => x?.ratio ?? null);
    charts.push({
      id: `ratio-${i}`,
      group: 'ratio',
      metric: name,
      title: `${name} — ${at.findLast((x) => x !== null)?.metric ?? 'checks-on / checks-off'}`,
      yLabel: 'ratio (1.00 = free)',
      values,
      low: at.map((x) => x?.ciLow ?? null),
      high: at.map((x) => x?.ciHigh ?? null),
      reference: { value: 1 + margin, label: `margin ${(1 + margin).toFixed(2)}` },
      survived: null,
      points: countPoints(values),
    });
  });

  metricNames(records, (r) => r.fuzz?.targets.map((t) => t.target) ?? []).forEach((target, i) => {
    const values = records.map((r) => r.fuzz?.targets.find((t) => t.target === target)?.commandsPerSecond ?? null);
    charts.push({
      id: `fuzz-${i}`,
      group: 'fuzz',
      metric: target,
      title: `fuzz throughput — ${target}`,
      yLabel: 'model commands / s',
      values,
      low: null,
      high: null,
      reference: null,
      survived: null,
      points: countPoints(values),
    });
  });

  metricNames(records, (r) => r.killTable?.mutants.map((m) => m.mutant) ?? []).forEach((mutant, i) => {
    const at = records.map((r) => ({ table: r.killTable, row: r.killTable?.mutants.find((m) => m.mutant === mutant) ?? null }));
    const values = at.map(({ row }) => row?.detectMs ?? null);
    const target = at.findLast(({ row }) => row !== null)?.row?.target ?? '?';
    charts.push({
      id: `detect-${i}`,
      group: 'detect',
      metric: mutant,
      title: `time to detect — ${mutant} (${target})`,
      yLabel: 'ms to detect',
      values,
      low: null,
      high: null,
      reference: null,
      survived: at.map(({ table, row }) => (row !== null && !row.killed && table !== null && table !== undefined ? table.timePerMutantSeconds * 1000 : null)),
      points: countPoints(values),
    });
  });
  return { commits, charts, steps: methodSteps(commits) };
}
