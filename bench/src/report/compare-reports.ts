/**
 * `bench:compare`'s test: for every bench in both reports, the change CURRENT / BASELINE of the
 * per-round samples, as the Hodges–Lehmann shift with its rank-sum (Mann–Whitney) interval, which
 * takes both runs' rounds and their spread into account (see stats/shift-interval.ts). A
 * regression is a change whose whole interval lies above `1 + margin` — significant and larger
 * than the margin — never a fixed threshold on one number.
 *
 * Informational ratios (the host pool's bookkeeping cycle, the GPU / CPU comparisons) are tested
 * the same way and flagged when they regress, but never gate.
 *
 * The checks ratios are compared always and gate when both reports measured them the same way:
 * the same isolation of children (a case's ratio moved by up to 0.1 between `file` and `case`),
 * the same layout (likewise between `bundle` and `modules`), and, for the GPU benches, the same
 * adapter (on a CPU-emulated one the check costs what emulated atomics cost). Absolute times are
 * compared too, and gate only when both reports come from the same CPU model, Node version,
 * pinning and GPU adapter (`times: 'auto'`), or always (`'gate'`), or never (`'info'`).
 *
 * @packageDocumentation
 */
import { ratioCentre } from '../stats/robust-center.js';
import { shiftInterval } from '../stats/shift-interval.js';
import type { RatioInterval } from '../stats/types.js';
import { kConfidence } from '../stats/verdict.js';
import type { VariantId } from '../harness/bench-pair.js';
import type { BenchReport, RatioEntry } from './bench-report.js';

/** How much worse a metric may get before it is a regression: 5% (the default). */
export const kCompareMarginDefault = 0.05;
/** Rounds each report needs for a change to be tested: the rank-sum interval's tables start at 5 a side. */
export const kRoundsForCompareMin = 5;

export type TimesMode = 'auto' | 'gate' | 'info';
export const kTimesModes: readonly TimesMode[] = ['auto', 'gate', 'info'];

/**
 * `regression`: the interval lies above `1 + margin`. `improvement`: it lies below
 * `1 / (1 + margin)`. `unchanged`: it lies within the margin both ways. `inconclusive`: it reaches
 * past the margin without clearing it. `too-few-rounds`: either side has fewer rounds than the
 * test needs. A change smaller than the margin is never called slower or faster: two runs of the
 * same code on a shared machine differ by more than their rounds' spread shows (the machine's
 * state moves between runs), so a sub-margin difference is no evidence of a change in the code.
 */
export type CompareStatus = 'regression' | 'improvement' | 'unchanged' | 'inconclusive' | 'too-few-rounds';

export type Metric = 'checks ratio' | `time ${VariantId}`;

export interface CompareRow {
  readonly name: string;
  readonly metric: Metric;
  /** Centre of the baseline's samples (a ratio, or ns per call). */
  readonly baseline: number;
  readonly current: number;
  /** CURRENT / BASELINE and its interval; null when either report has too few rounds. */
  readonly change: RatioInterval | null;
  readonly status: CompareStatus;
  /** Whether a regression in this row fails the compare. */
  readonly gating: boolean;
  /** The row is an informational ratio (never gates; flagged when it regresses). */
  readonly informational: boolean;
}

export interface CompareResult {
  readonly rows: readonly CompareRow[];
  /** Benches only in the baseline, or only in the current report. */
  readonly missing: readonly string[];
  readonly added: readonly string[];
  /** Whether time rows gate, and why. */
  readonly timesGate: boolean;
  readonly timesNote: string;
  /** Why a checks-ratio row does not gate, when one does not (else null). */
  readonly ratiosNote: string | null;
  /** Gating rows whose change is a regression: what fails the compare. */
  readonly regressions: readonly CompareRow[];
  /** Informational ratios whose change is a regression: flagged, never failing. */
  readonly informationalRegressions: readonly CompareRow[];
}

export interface CompareOptions {
  readonly margin: number;
  readonly times: TimesMode;
  /** Two-sided confidence of every change interval. @defaultValue kConfidence */
  readonly confidence?: number;
}

/** Classifies a change interval against the margin. */
export function classifyChange(change: RatioInterval, margin: number): Exclude<CompareStatus, 'too-few-rounds'> {
  const upper = 1 + margin;
  const lower = 1 / upper;
  if (change.ciLow > upper) return 'regression';
  if (change.ciHigh < lower) return 'improvement';
  if (change.ciLow >= lower && change.ciHigh <= upper) return 'unchanged';
  return 'inconclusive';
}

/** The adapter a report's GPU benches ran on, or null when it ran none. */
function adapterOf(r: BenchReport): string | null {
  const gpu = r.machine.gpu;
  return gpu === undefined ? null : `${gpu.vendor} ${gpu.device} ${gpu.description}`.trim();
}

function sameMachine(a: BenchReport, b: BenchReport): { same: boolean; note: string } {
  const diffs: string[] = [];
  const [gpuA, gpuB] = [adapterOf(a), adapterOf(b)];
  if (gpuA !== null && gpuB !== null && gpuA !== gpuB) diffs.push(`GPU ${gpuA} vs ${gpuB}`);
  if (a.machine.cpu?.model !== b.machine.cpu?.model) diffs.push(`CPU ${a.machine.cpu?.model} vs ${b.machine.cpu?.model}`);
  if (a.machine.node !== b.machine.node) diffs.push(`Node ${a.machine.node} vs ${b.machine.node}`);
  if (a.machine.taskset?.used !== b.machine.taskset?.used) diffs.push(`pinning ${String(a.machine.taskset?.used)} vs ${String(b.machine.taskset?.used)}`);
  // Absent: glibc's default malloc (reports before the children's tunables).
  const [mallocA, mallocB] = [a.machine.mallocTunables ?? 'default', b.machine.mallocTunables ?? 'default'];
  if (mallocA !== mallocB) diffs.push(`malloc ${mallocA} vs ${mallocB}`);
  return diffs.length === 0 ? { same: true, note: 'same CPU model, Node, pinning, malloc and GPU adapter' } : { same: false, note: diffs.join('; ') };
}

/** Why the ratios of the host pool's copy cycle cannot gate between two reports: they copied for different models. */
function kvModelsDiffer(a: BenchReport, b: BenchReport): string | null {
  const [kvA, kvB] = [a.settings.kvModel, b.settings.kvModel];
  if (kvA === undefined || kvB === undefined || kvA.kvBytesPerToken === kvB.kvBytesPerToken) return null;
  return `copy cycle model ${kvA.name} (${kvA.kvBytesPerToken} B/token) vs ${kvB.name} (${kvB.kvBytesPerToken} B/token): the copy's share of the cycle differs`;
}

/** Whether a bench is the host pool's copy cycle, whose ratio depends on the model's KV bytes. */
function copiesKv(bench: { readonly package: string; readonly op: string }): boolean {
  return bench.package === 'host-pool' && bench.op === 'kv-copy';
}

/** Why the checks ratios of `bench` cannot gate between the two reports, or null when they can. */
function ratiosDiffer(a: BenchReport, b: BenchReport, gpuBench: boolean): string | null {
  const [isoA, isoB] = [a.settings.isolation ?? 'file', b.settings.isolation ?? 'file'];
  if (isoA !== isoB) return `isolation ${isoA} vs ${isoB}: a case's ratio depends on what shares its children`;
  const [layoutA, layoutB] = [a.settings.layout ?? 'bundle', b.settings.layout ?? 'bundle'];
  if (layoutA !== layoutB) return `layout ${layoutA} vs ${layoutB}: V8 compiles the two differently, and a ratio moves by up to 0.1 between them`;
  const [gpuA, gpuB] = [adapterOf(a), adapterOf(b)];
  if (gpuBench && gpuA !== gpuB) return `GPU ${String(gpuA)} vs ${String(gpuB)}: the GPU checks ratios depend on the adapter`;
  return null;
}

/** Compares two reports bench by bench. */
export function compareReports(baseline: BenchReport, current: BenchReport, options: CompareOptions): CompareResult {
  const machine = sameMachine(baseline, current);
  const timesGate = options.times === 'gate' || (options.times === 'auto' && machine.same);
  const timesNote =
    options.times === 'gate' ? `times gate (--times gate; ${machine.note})` : options.times === 'info' ? 'times are informational (--times info)' : machine.same ? `times gate: ${machine.note}` : `times are informational: ${machine.note}`;
  const baseByName = new Map(baseline.benches.map((b) => [b.name, b]));
  const curNames = new Set(current.benches.map((b) => b.name));
  // A ratio is informational when either report says so: a pair that stopped gating is compared with its own history.
  const informational = new Set([...baseline.ratios, ...current.ratios].filter((r) => r.informational === true).map((r) => r.name));
  const confidence = options.confidence ?? kConfidence;
  const rows: CompareRow[] = [];
  // Whether a ratio gates depends on the reports and on the kind of bench: a few answers, found once.
  const ratioNoteOf = { cpu: ratiosDiffer(baseline, current, false), gpu: ratiosDiffer(baseline, current, true), kv: kvModelsDiffer(baseline, current) };
  const ratioNotes = new Set<string>();
  for (const cur of current.benches) {
    const base = baseByName.get(cur.name);
    if (base === undefined) continue;
    const ratioNote = ratioNoteOf[cur.package === 'gpu-kernels' ? 'gpu' : 'cpu'] ?? (copiesKv(cur) ? ratioNoteOf.kv : null);
    if (ratioNote !== null) ratioNotes.add(ratioNote);
    const info = informational.has(cur.name);
    const metrics: { metric: Metric; base: readonly number[]; cur: readonly number[]; gating: boolean }[] = [
      { metric: 'checks ratio', base: base.perRound.map((r) => r.ratio), cur: cur.perRound.map((r) => r.ratio), gating: ratioNote === null && !info },
      { metric: 'time checks-off', base: base.variants['checks-off'].perRoundNs, cur: cur.variants['checks-off'].perRoundNs, gating: timesGate && !info },
      { metric: 'time checks-on', base: base.variants['checks-on'].perRoundNs, cur: cur.variants['checks-on'].perRoundNs, gating: timesGate && !info },
    ];
    for (const m of metrics) {
      const enough = m.base.length >= kRoundsForCompareMin && m.cur.length >= kRoundsForCompareMin;
      const change = enough ? shiftInterval(m.base, m.cur, confidence) : null;
      rows.push({
        name: cur.name,
        metric: m.metric,
        baseline: ratioCentre(m.base),
        current: ratioCentre(m.cur),
        change,
        status: change === null ? 'too-few-rounds' : classifyChange(change, options.margin),
        gating: m.gating,
        informational: info,
      });
    }
  }
  return {
    rows,
    missing: baseline.benches.map((b) => b.name).filter((n) => !curNames.has(n)),
    added: current.benches.map((b) => b.name).filter((n) => !baseByName.has(n)),
    timesGate,
    timesNote,
    ratiosNote: ratioNotes.size === 0 ? null : `checks ratios informational where the reports differ: ${[...ratioNotes].join('; ')}`,
    regressions: rows.filter((r) => r.gating && r.status === 'regression'),
    informationalRegressions: rows.filter((r) => r.informational && r.metric === 'checks ratio' && r.status === 'regression'),
  };
}

/**
 * Why two runs' verdicts on a case differ:
 * - `ratio moved`: the intervals are apart, so the ratio itself changed between the runs (the
 *   machine, or the code); a pass against a fail always is.
 * - `at the margin`: the intervals overlap (the runs measured the same ratio) and one holds
 *   1 + margin with a width like the other's: the ratio sits at the margin, and is decided one way
 *   or the other from run to run whatever the harness does; a cheaper check settles it.
 * - `wider spread`: the intervals overlap, and the one that holds 1 + margin is more than twice as
 *   wide as the other: that run's rounds spread more (a noisier machine or case).
 * - `too few rounds`: the intervals overlap and neither holds 1 + margin: a run stopped before its
 *   rounds could support a verdict.
 */
export type VerdictDifference = 'ratio moved' | 'at the margin' | 'wider spread' | 'too few rounds';
export const kVerdictDifferences: readonly VerdictDifference[] = ['ratio moved', 'at the margin', 'wider spread', 'too few rounds'];

export interface VerdictDiffer {
  readonly name: string;
  readonly first: RatioEntry;
  readonly second: RatioEntry;
  readonly why: VerdictDifference;
}

/** How two reports' verdicts compare, case by case (two runs of the same code should agree). */
export interface VerdictAgreement {
  readonly agree: number;
  readonly differ: readonly VerdictDiffer[];
  /** Cases only one report has. */
  readonly unpaired: readonly string[];
}

/** Every ratio both reports have, with the verdicts that differ; informational ratios included. */
export function verdictAgreement(first: BenchReport, second: BenchReport): VerdictAgreement {
  const secondByName = new Map(second.ratios.map((r) => [r.name, r]));
  const firstNames = new Set(first.ratios.map((r) => r.name));
  const differ: VerdictDiffer[] = [];
  let agree = 0;
  for (const r of first.ratios) {
    const other = secondByName.get(r.name);
    if (other === undefined) continue;
    if (other.verdict === r.verdict) agree++;
    else differ.push({ name: r.name, first: r, second: other, why: verdictDifference(r, other, first.settings.margin) });
  }
  const unpaired = [...first.ratios.filter((r) => !secondByName.has(r.name)), ...second.ratios.filter((r) => !firstNames.has(r.name))].map((r) => r.name);
  return { agree, differ, unpaired };
}

/** See {@link VerdictDifference}. */
export function verdictDifference(a: Pick<RatioEntry, 'ciLow' | 'ciHigh'>, b: Pick<RatioEntry, 'ciLow' | 'ciHigh'>, margin: number): VerdictDifference {
  if (a.ciHigh < b.ciLow || b.ciHigh < a.ciLow) return 'ratio moved';
  const holds = (r: Pick<RatioEntry, 'ciLow' | 'ciHigh'>): boolean => r.ciLow <= 1 + margin && r.ciHigh >= 1 + margin;
  if (!holds(a) && !holds(b)) return 'too few rounds';
  const [held, other] = holds(a) ? [a, b] : [b, a];
  return held.ciHigh - held.ciLow > 2 * (other.ciHigh - other.ciLow) ? 'wider spread' : 'at the margin';
}
