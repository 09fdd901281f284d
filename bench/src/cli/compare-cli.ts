/**
 * `pnpm bench:compare BASELINE CURRENT`: tests every bench of two `bench/1` reports for a change
 * (see `compareReports`), prints a table and the summary last.
 * Exit 0: no significant regression beyond the margin; 1: at least one; 2: bad input.
 * `--verdicts FIRST SECOND`: whether two runs (of the same code) reached the same verdict for
 * every case, and why each that differs does; exit 1 when one differs.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseReport, ReportFormatError, type BenchReport, type RatioEntry } from '../report/bench-report.js';
import { compareReports, kCompareMarginDefault, kRoundsForCompareMin, kTimesModes, kVerdictDifferences, verdictAgreement, type CompareRow, type TimesMode } from '../report/compare-reports.js';
import { formatInterval, formatNs, formatTable } from '../report/format-table.js';
import { parseCliArgs } from './cli-args.js';
import type { CliIo } from './cli-io.js';
import { writeJsonFile } from './json-file.js';
import { UsageError } from './usage-error.js';

const kHelp = `Usage: pnpm bench:compare BASELINE CURRENT [--margin X] [--times auto|gate|info] [--all]
       pnpm bench:compare --verdicts FIRST SECOND

Compares two pnpm bench --json reports bench by bench. For each metric — the checks ratio, and
each variant's time per call — the change CURRENT / BASELINE of the per-round samples is the
Hodges–Lehmann shift (median of all pairwise ratios) with its rank-sum (Mann–Whitney) 95% interval,
which takes both reports' rounds and their spread into account (${kRoundsForCompareMin} rounds a side at least).
A regression is a change whose whole interval lies above 1 + margin. Informational ratios (the
host pool's bookkeeping cycle, GPU / CPU) are tested the same way and flagged, never failing.

--verdicts FIRST SECOND: whether two runs reached the same verdict for every case they share
(run the same code twice to calibrate: every case should agree). Each case that differs says why:
"ratio moved" (the intervals are apart: the machine or the code changed the ratio), "at the
margin" (they overlap, and one holds 1 + margin: the same ratio, decided in one run and not in
the other), "wider spread" (as at the margin, but the interval that holds 1 + margin is more than
twice as wide: that run was noisier) or "too few rounds".

Options:
  --margin X       how much worse a metric may get, as a fraction (default ${kCompareMarginDefault})
  --times MODE     auto (default): times gate only when both reports come from the same CPU model,
                   Node version and pinning; gate: always; info: never (ratios always gate)
  --all            list every row, not only the changed ones
  --verdicts       compare the two reports' verdicts instead
  --json FILE      also write the result as JSON (bench-compare/1; --verdicts: bench-verdicts/1)
  -h, --help       this text

Exit status: 0 no significant regression beyond the margin (--verdicts: every verdict agrees),
1 at least one (--verdicts: one differs), 2 bad input.`;

interface CompareCliOptions {
  readonly baseline: string;
  readonly current: string;
  readonly margin: number;
  readonly times: TimesMode;
  readonly all: boolean;
  readonly verdicts: boolean;
  readonly json: string | null;
}

function parseCli(argv: readonly string[]): CompareCliOptions | 'help' {
  const parsed = parseCliArgs({
    args: [...argv],
    options: {
      margin: { type: 'string' },
      times: { type: 'string', default: 'auto' },
      all: { type: 'boolean', default: false },
      verdicts: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
  });
  const v = parsed.values;
  if (v.help) return 'help';
  if (parsed.positionals.length !== 2) throw new UsageError(`give exactly two reports, BASELINE and CURRENT (got ${parsed.positionals.length})`);
  const margin = v.margin === undefined ? kCompareMarginDefault : Number(v.margin);
  if (!(margin >= 0 && margin < 1)) throw new UsageError(`--margin ${v.margin} is not a fraction in [0, 1) (5% is 0.05)`);
  const times = v.times as TimesMode;
  if (!kTimesModes.includes(times)) throw new UsageError(`--times ${v.times} is not one of ${kTimesModes.join(', ')}`);
  if (v.json === '') throw new UsageError('--json needs a file name');
  return { baseline: parsed.positionals[0] as string, current: parsed.positionals[1] as string, margin, times, all: v.all, verdicts: v.verdicts, json: v.json ?? null };
}

function readReport(path: string, label: string): BenchReport {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ReportFormatError(`${label} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ReportFormatError(`${label} ${path}: not JSON (${(error as Error).message})`);
  }
  return parseReport(doc, `${label} ${path}`);
}

function showValue(row: CompareRow, x: number): string {
  return row.metric === 'checks ratio' ? x.toFixed(3) : formatNs(x);
}

/** Runs the CLI; returns the exit status. */
export function compareMain(argv: readonly string[], io: CliIo): number {
  let options;
  let baseline: BenchReport;
  let current: BenchReport;
  try {
    options = parseCli(argv);
    if (options === 'help') {
      io.out(`${kHelp}\n`);
      return 0;
    }
    baseline = readReport(resolve(io.baseDir, options.baseline), 'BASELINE');
    current = readReport(resolve(io.baseDir, options.current), 'CURRENT');
  } catch (error) {
    if (error instanceof UsageError || error instanceof ReportFormatError) {
      io.err(`pnpm bench:compare: ${error.message}\n${error instanceof UsageError ? '(see pnpm bench:compare --help)\n' : ''}`);
      return 2;
    }
    throw error;
  }
  const json = options.json === null ? null : resolve(io.baseDir, options.json);
  if (options.verdicts) return verdictsMain(baseline, current, io, { json, first: options.baseline, second: options.current });
  const result = compareReports(baseline, current, { margin: options.margin, times: options.times });
  const shown = options.all ? result.rows : result.rows.filter((r) => r.status !== 'unchanged');
  const table = shown.map((r) => [
    r.name,
    r.metric,
    showValue(r, r.baseline),
    showValue(r, r.current),
    r.change === null ? '—' : formatInterval(r.change.ratio, r.change.ciLow, r.change.ciHigh),
    r.status === 'regression' ? (r.gating ? 'REGRESSION' : 'regression (info)') : r.status,
  ]);
  if (table.length > 0) io.out(`${formatTable(['bench', 'metric', 'baseline', 'current', 'change [95% CI]', 'status'], table)}\n\n`);
  else io.out(`every metric unchanged (every interval within the margin)${options.all ? '' : '; --all lists them'}\n\n`);
  if (result.missing.length > 0) io.out(`only in BASELINE: ${result.missing.join(', ')}\n`);
  if (result.added.length > 0) io.out(`only in CURRENT: ${result.added.join(', ')}\n`);
  io.out(`${result.timesNote}\n`);
  if (result.ratiosNote !== null) io.out(`${result.ratiosNote}\n`);
  if (result.informationalRegressions.length > 0) io.out(`informational ratios that regressed (flagged, not failing): ${result.informationalRegressions.map((r) => r.name).join(', ')}\n`);
  const benches = new Set(result.rows.map((r) => r.name)).size;
  const count = (s: string): number => result.rows.filter((r) => r.status === s).length;
  io.out(
    `compare: ${benches} ${benches === 1 ? 'bench' : 'benches'}, ${result.rows.length} metrics at margin ${(options.margin * 100).toFixed(0)}% — ` +
      `${result.regressions.length} ${result.regressions.length === 1 ? 'regression' : 'regressions'}, ${count('improvement')} ${count('improvement') === 1 ? 'improvement' : 'improvements'}, ${count('unchanged')} unchanged, ${count('inconclusive')} inconclusive` +
      `${count('too-few-rounds') > 0 ? `, ${count('too-few-rounds')} with too few rounds` : ''}\n`,
  );
  const status = result.regressions.length > 0 ? 1 : 0;
  writeJsonFile(json, {
    kvfuzz: 'bench-compare/1',
    baseline: options.baseline,
    current: options.current,
    margin: options.margin,
    timesGate: result.timesGate,
    timesNote: result.timesNote,
    ratiosNote: result.ratiosNote,
    rows: result.rows,
    onlyInBaseline: result.missing,
    onlyInCurrent: result.added,
    regressions: result.regressions.map((r) => `${r.name} (${r.metric})`),
    informationalRegressions: result.informationalRegressions.map((r) => r.name),
    status,
  });
  return status;
}

/** `--verdicts`: the cases whose verdicts differ between two runs. */
function verdictsMain(first: BenchReport, second: BenchReport, io: CliIo, out: { readonly json: string | null; readonly first: string; readonly second: string }): number {
  const a = verdictAgreement(first, second);
  const cell = (r: RatioEntry): string => `${r.verdict} ${formatInterval(r.ratio, r.ciLow, r.ciHigh)}`;
  if (a.differ.length > 0) io.out(`${formatTable(['bench', 'FIRST', 'SECOND', 'why'], a.differ.map((d) => [d.name, cell(d.first), cell(d.second), d.why]))}\n\n`);
  if (a.unpaired.length > 0) io.out(`in one report only: ${a.unpaired.join(', ')}\n`);
  const total = a.agree + a.differ.length;
  const whys = kVerdictDifferences.map((why) => [why, a.differ.filter((d) => d.why === why).length] as const).filter(([, n]) => n > 0);
  const differ = a.differ.length > 0 ? `, ${a.differ.length} differ (${whys.map(([why, n]) => `${n} ${why}`).join(', ')})` : '';
  io.out(`verdicts: ${a.agree} of ${total} ${total === 1 ? 'case agrees' : 'cases agree'}${differ}\n`);
  const status = a.differ.length > 0 ? 1 : 0;
  const entry = (r: RatioEntry) => ({ verdict: r.verdict, ratio: r.ratio, ciLow: r.ciLow, ciHigh: r.ciHigh, rounds: r.rounds });
  writeJsonFile(out.json, { kvfuzz: 'bench-verdicts/1', first: out.first, second: out.second, agree: a.agree, differ: a.differ.map((d) => ({ name: d.name, why: d.why, first: entry(d.first), second: entry(d.second) })), unpaired: a.unpaired, status });
  return status;
}
