/**
 * What the history report draws: the verdict counts of the full runs over commits (the summary's
 * chart), then one chart per tracked metric over the recorded commits — each checks ratio with
 * its interval and the margin line, each fuzz target's commands per second, each planted mutant's
 * time to detect — as plain data the page script hands to uPlot.
 *
 * Records are kept apart by kind: full runs of committed code are the main series (the line, the
 * whiskers, the y scale); quick runs and records taken with uncommitted changes are marks of
 * their own that never set the scale, so an outlier among them cannot squash the line.
 *
 * @packageDocumentation
 */
import { chartOrder } from '../history/history-record.js';
import type { HistoryRecord } from '../history/types.js';

/** Length of the sha a chart's axis shows. */
export const kShortShaLength = 7;
/** Room above and below the drawn values, as a share of their span. */
const kRangePad = 0.08;
/** A ratio chart's y range reaches at most this far past its values for the whiskers (ratio units); longer whiskers are clipped. */
const kWhiskerReachMax = 0.05;

/** The three kinds of metric, one section of the page each. */
export type ChartGroup = 'ratio' | 'fuzz' | 'detect';

/**
 * How a record is charted: a full run of committed code (`full`, the main series), a quick run
 * of committed code (`quick`), or a record taken with uncommitted changes, either mode (`dirty`).
 */
export type RecordKind = 'full' | 'quick' | 'dirty';

/** One x position: a recorded run. */
export interface ChartCommit {
  readonly sha: string;
  /** The first {@link kShortShaLength} hex digits. */
  readonly short: string;
  readonly date: string;
  readonly subject: string;
  readonly dirty: boolean;
  readonly mode: 'quick' | 'full';
  readonly kind: RecordKind;
  /** How the run isolated its cases (`file` for records from before the setting). */
  readonly isolation: 'case' | 'file';
  /** How its children loaded the code; null for records from before the setting. */
  readonly layout: 'bundle' | 'modules' | null;
  /** How its intervals were made (`bootstrap` for records from before order statistics). */
  readonly interval: 'bootstrap' | 'order-statistic';
  /** How its rounds' ratios were made (`medians` for records from before slice pairs). */
  readonly roundRatio: 'medians' | 'slice-pairs';
  /** The rounds at which its intervals were read; null for records from before the field. */
  readonly looks: readonly number[] | null;
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
  /** The main series: full runs of committed code for ratios, every committed record for fuzz and detect. */
  readonly values: readonly (number | null)[];
  /** Quick runs of committed code (ratios only; null for the other groups). */
  readonly quick: readonly (number | null)[] | null;
  /** Records taken with uncommitted changes. */
  readonly dirty: readonly (number | null)[];
  /** The main series' interval bounds per commit (ratios only). */
  readonly low: readonly (number | null)[] | null;
  readonly high: readonly (number | null)[] | null;
  /** A horizontal line: the margin `1 + margin` for ratios. */
  readonly reference: { readonly value: number; readonly label: string } | null;
  /** Mutants only: the budget (ms) at commits where the mutant survived it, else null. */
  readonly survived: readonly (number | null)[] | null;
  /** The y axis: set by the main series (and the margin), never by quick or dirty marks. */
  readonly yRange: readonly [number, number];
  /** Ratios: whether the ratio gates at the latest record that has it; null for fuzz and detect. */
  readonly gated: boolean | null;
  /** Non-null entries of `values`: the points the page must draw. */
  readonly points: number;
}

/**
 * A change of method between two neighbouring records: `index` is the first record measured the
 * new way. A ratio may step there for reasons that are not the code, so every chart marks it
 * with its number, and the page lists the numbers once.
 */
export interface MethodStep {
  readonly index: number;
  /** What changed, as the new way: e.g. `a child pair per case`, `layout modules`. */
  readonly label: string;
}

/** The gated verdicts of every full run of committed code: the summary's chart. */
export interface VerdictCounts {
  /** Indexes into `commits`, in chart order. */
  readonly at: readonly number[];
  readonly pass: readonly number[];
  readonly fail: readonly number[];
  readonly inconclusive: readonly number[];
}

/** Everything the page draws. */
export interface HistoryChartData {
  readonly commits: readonly ChartCommit[];
  readonly verdicts: VerdictCounts;
  readonly charts: readonly ChartSpec[];
  readonly steps: readonly MethodStep[];
}

/** How a record is charted. */
export function recordKind(r: Pick<HistoryRecord, 'mode' | 'commit'>): RecordKind {
  return r.commit.dirty ? 'dirty' : r.mode;
}

/**
 * Where the isolation, the layout, the interval, the round ratio or the looks change between
 * neighbouring commits. Looks are compared only where both records name them.
 */
function methodSteps(commits: readonly ChartCommit[]): MethodStep[] {
  const steps: MethodStep[] = [];
  for (let i = 1; i < commits.length; i++) {
    const [before, now] = [commits[i - 1] as ChartCommit, commits[i] as ChartCommit];
    const changes: string[] = [];
    if (now.isolation !== before.isolation) changes.push(`a child pair per ${now.isolation}`);
    if ((now.layout ?? 'bundle') !== (before.layout ?? 'bundle')) changes.push(`layout ${now.layout ?? 'bundle'}`);
    if (now.interval !== before.interval) changes.push(`${now.interval} intervals`);
    if (now.roundRatio !== before.roundRatio) changes.push(`round ratios from ${now.roundRatio}`);
    if (now.looks !== null && before.looks !== null && now.looks.join() !== before.looks.join()) changes.push(`looks at ${now.looks.join(', ')} rounds`);
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

/** `values` where `keep(kind)` holds, null elsewhere. */
function only(values: readonly (number | null)[], kinds: readonly RecordKind[], keep: (kind: RecordKind) => boolean): (number | null)[] {
  return values.map((v, i) => (keep(kinds[i] as RecordKind) ? v : null));
}

function finite(values: readonly (number | null)[]): number[] {
  return values.filter((v): v is number => v !== null && Number.isFinite(v));
}

/**
 * A ratio chart's y range: its main values (or, without any, its quick values, then its dirty
 * ones), 1 and the margin, with the whiskers reaching at most {@link kWhiskerReachMax} beyond.
 */
function ratioRange(main: readonly (number | null)[], low: readonly (number | null)[], high: readonly (number | null)[], fallback: readonly (readonly (number | null)[])[], limit: number): [number, number] {
  let values = finite(main);
  for (const f of fallback) if (values.length === 0) values = finite(f);
  const lo = Math.min(1, ...values);
  const hi = Math.max(limit, ...values);
  const lows = finite(low.map((l, i) => (main[i] === null ? null : l)));
  const highs = finite(high.map((h, i) => (main[i] === null ? null : h)));
  const reachLo = Math.max(lo - kWhiskerReachMax, Math.min(lo, ...lows));
  const reachHi = Math.min(hi + kWhiskerReachMax, Math.max(hi, ...highs));
  const pad = (reachHi - reachLo) * kRangePad || 0.05;
  return [reachLo - pad, reachHi + pad];
}

/** A fuzz or detect chart's y range: from 0 to its main values (or dirty ones) and survivor marks. */
function countRange(main: readonly (number | null)[], dirty: readonly (number | null)[], survived: readonly (number | null)[] | null): [number, number] {
  const values = finite(main).length > 0 ? finite(main) : finite(dirty);
  const top = Math.max(1, ...values, ...finite(survived ?? []));
  return [0, top * (1 + 1.5 * kRangePad)];
}

/** The gated verdict counts of the full runs of committed code. */
function verdictCounts(records: readonly HistoryRecord[]): VerdictCounts {
  const at: number[] = [];
  const counts = { pass: [] as number[], fail: [] as number[], inconclusive: [] as number[] };
  records.forEach((r, i) => {
    if (recordKind(r) !== 'full') return;
    at.push(i);
    const gated = r.ratios.filter((x) => x.informational !== true);
    for (const v of ['pass', 'fail', 'inconclusive'] as const) counts[v].push(gated.filter((x) => x.verdict === v).length);
  });
  return { at, ...counts };
}

/**
 * Builds the charts of a history.
 *
 * @param history - the records in any order; charted by commit date, then by when recorded
 */
export function historyCharts(history: readonly HistoryRecord[]): HistoryChartData {
  const records = chartOrder(history);
  const latest = records.at(-1);
  const commits: ChartCommit[] = records.map((r) => ({
    sha: r.commit.sha,
    short: r.commit.sha.slice(0, kShortShaLength),
    date: r.commit.date,
    subject: r.commit.subject,
    dirty: r.commit.dirty,
    mode: r.mode,
    kind: recordKind(r),
    isolation: r.isolation ?? 'file',
    layout: r.layout ?? null,
    interval: r.interval ?? 'bootstrap',
    roundRatio: r.roundRatio ?? 'medians',
    looks: r.looks ?? null,
  }));
  const kinds = commits.map((c) => c.kind);
  const charts: ChartSpec[] = [];

  const margin = latest?.margin ?? 0;
  metricNames(records, (r) => r.ratios.map((x) => x.name)).forEach((name, i) => {
    const at = records.map((r) => r.ratios.find((x) => x.name === name) ?? null);
    const all = at.map((x) => x?.ratio ?? null);
    const values = only(all, kinds, (k) => k === 'full');
    const low = only(at.map((x) => x?.ciLow ?? null), kinds, (k) => k === 'full');
    const high = only(at.map((x) => x?.ciHigh ?? null), kinds, (k) => k === 'full');
    const quick = only(all, kinds, (k) => k === 'quick');
    const dirty = only(all, kinds, (k) => k === 'dirty');
    const newest = at.findLast((x) => x !== null);
    charts.push({
      id: `ratio-${i}`,
      group: 'ratio',
      metric: name,
      title: `${name} — ${newest?.metric ?? 'checks-on / checks-off'}${newest?.informational === true ? ' (informational)' : ''}`,
      yLabel: 'ratio (1.00 = free)',
      values,
      quick,
      dirty,
      low,
      high,
      reference: { value: 1 + margin, label: `margin ${(1 + margin).toFixed(2)}` },
      survived: null,
      yRange: ratioRange(values, low, high, [quick, dirty], 1 + margin),
      gated: newest?.informational !== true,
      points: countPoints(values),
    });
  });

  metricNames(records, (r) => r.fuzz?.targets.map((t) => t.target) ?? []).forEach((target, i) => {
    const all = records.map((r) => r.fuzz?.targets.find((t) => t.target === target)?.commandsPerSecond ?? null);
    const values = only(all, kinds, (k) => k !== 'dirty');
    const dirty = only(all, kinds, (k) => k === 'dirty');
    charts.push({
      id: `fuzz-${i}`,
      group: 'fuzz',
      metric: target,
      title: `fuzz throughput — ${target}`,
      yLabel: 'model commands / s',
      values,
      quick: null,
      dirty,
      low: null,
      high: null,
      reference: null,
      survived: null,
      yRange: countRange(values, dirty, null),
      gated: null,
      points: countPoints(values),
    });
  });

  metricNames(records, (r) => r.killTable?.mutants.map((m) => m.mutant) ?? []).forEach((mutant, i) => {
    const at = records.map((r) => ({ table: r.killTable, row: r.killTable?.mutants.find((m) => m.mutant === mutant) ?? null }));
    const all = at.map(({ row }) => row?.detectMs ?? null);
    const values = only(all, kinds, (k) => k !== 'dirty');
    const dirty = only(all, kinds, (k) => k === 'dirty');
    const target = at.findLast(({ row }) => row !== null)?.row?.target ?? '?';
    const survived = at.map(({ table, row }) => (row !== null && !row.killed && table !== null && table !== undefined ? table.timePerMutantSeconds * 1000 : null));
    charts.push({
      id: `detect-${i}`,
      group: 'detect',
      metric: mutant,
      title: `time to detect — ${mutant} (${target})`,
      yLabel: 'ms to detect',
      values,
      quick: null,
      dirty,
      low: null,
      high: null,
      reference: null,
      survived,
      yRange: countRange(values, dirty, survived),
      gated: null,
      points: countPoints(values),
    });
  });
  return { commits, verdicts: verdictCounts(records), charts, steps: methodSteps(commits) };
}
