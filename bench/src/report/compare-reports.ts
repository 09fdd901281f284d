/**
 * `bench:compare`'s test: for every bench in both reports, the change CURRENT / BASELINE of the
 * per-round samples' medians, with a two-sample percentile-bootstrap interval that
 * resamples each report's rounds. A regression is a change whose whole interval lies above
 * `1 + margin` — significant and larger than the margin — never a fixed threshold on one number.
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
import { bootstrapRatioOfCentres, type RatioInterval } from '../stats/bootstrap.js';
import { ratioCentre } from '../stats/robust-center.js';
import { kRoundsForVerdictMin } from '../stats/verdict.js';
import type { VariantId } from '../harness/bench-pair.js';
import type { BenchReport } from './bench-report.js';

/** How much worse a metric may get before it is a regression: 5% (the default). */
export const kCompareMarginDefault = 0.05;

export type TimesMode = 'auto' | 'gate' | 'info';
export const kTimesModes: readonly TimesMode[] = ['auto', 'gate', 'info'];

/**
 * `regression`: the interval lies above 1 + margin. `slower`: above 1 but not clearly past the
 * margin. `faster`: below 1. `unchanged`: the interval holds 1. `too-few-rounds`: either side has
 * fewer rounds than a verdict needs.
 */
export type CompareStatus = 'regression' | 'slower' | 'unchanged' | 'faster' | 'too-few-rounds';

export type Metric = 'checks ratio' | `time ${VariantId}`;

export interface CompareRow {
  readonly name: string;
  readonly metric: Metric;
  /** Centre of the baseline's samples (a ratio, or ns per call). */
  readonly baseline: number;
  readonly current: number;
  /** CURRENT / BASELINE and its interval. */
  readonly change: RatioInterval;
  readonly status: CompareStatus;
  /** Whether a regression in this row fails the compare. */
  readonly gating: boolean;
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
  readonly regressions: readonly CompareRow[];
}

export interface CompareOptions {
  readonly margin: number;
  readonly times: TimesMode;
  readonly resamples?: number;
  readonly seed?: number;
}

/** Classifies a change interval against the margin. */
export function classifyChange(change: RatioInterval, margin: number): Exclude<CompareStatus, 'too-few-rounds'> {
  if (change.ciLow > 1 + margin) return 'regression';
  if (change.ciLow > 1) return 'slower';
  if (change.ciHigh < 1) return 'faster';
  return 'unchanged';
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
  const rows: CompareRow[] = [];
  const bootstrap = { ...(options.resamples === undefined ? {} : { resamples: options.resamples }), ...(options.seed === undefined ? {} : { seed: options.seed }) };
  // Whether a ratio gates depends on the reports and on whether the bench is a GPU one: two answers, found once.
  const ratioNoteOf = { cpu: ratiosDiffer(baseline, current, false), gpu: ratiosDiffer(baseline, current, true) };
  const ratioNotes = new Set<string>();
  for (const cur of current.benches) {
    const base = baseByName.get(cur.name);
    if (base === undefined) continue;
    const ratioNote = ratioNoteOf[cur.package === 'gpu-kernels' ? 'gpu' : 'cpu'];
    if (ratioNote !== null) ratioNotes.add(ratioNote);
    const metrics: { metric: Metric; base: readonly number[]; cur: readonly number[]; gating: boolean }[] = [
      { metric: 'checks ratio', base: base.perRound.map((r) => r.ratio), cur: cur.perRound.map((r) => r.ratio), gating: ratioNote === null },
      { metric: 'time checks-off', base: base.variants['checks-off'].perRoundNs, cur: cur.variants['checks-off'].perRoundNs, gating: timesGate },
      { metric: 'time checks-on', base: base.variants['checks-on'].perRoundNs, cur: cur.variants['checks-on'].perRoundNs, gating: timesGate },
    ];
    for (const m of metrics) {
      const change = bootstrapRatioOfCentres(m.base, m.cur, bootstrap);
      const enough = m.base.length >= kRoundsForVerdictMin && m.cur.length >= kRoundsForVerdictMin;
      rows.push({
        name: cur.name,
        metric: m.metric,
        baseline: ratioCentre(m.base),
        current: ratioCentre(m.cur),
        change,
        status: enough ? classifyChange(change, options.margin) : 'too-few-rounds',
        gating: m.gating,
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
  };
}
