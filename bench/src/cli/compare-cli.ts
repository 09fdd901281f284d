/**
 * `pnpm bench:compare BASELINE CURRENT`: tests every bench of two `bench/1` reports for a change
 * (see `compareReports`), prints a table and the summary last.
 * Exit 0: no significant regression beyond the margin; 1: at least one; 2: bad input.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseReport, ReportFormatError, type BenchReport } from '../report/bench-report.js';
import { compareReports, kCompareMarginDefault, kTimesModes, type CompareRow, type TimesMode } from '../report/compare-reports.js';
import { formatInterval, formatNs, formatTable } from '../report/format-table.js';
import { kBootstrapSeedDefault, kResamplesDefault, kResamplesMax, kResamplesMin } from '../stats/bootstrap.js';
import { parseCliArgs } from './cli-args.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';

const kHelp = `Usage: pnpm bench:compare BASELINE CURRENT [--margin X] [--times auto|gate|info] [--all]

Compares two pnpm bench --json reports bench by bench. For each metric — the checks ratio, and
each variant's time per call — the change CURRENT / BASELINE of the per-round samples is
bootstrapped (each report's rounds resampled on their own, ${kResamplesDefault} resamples, fixed seed) into a
95% interval. A regression is a change whose whole interval lies above 1 + margin.

Options:
  --margin X       how much worse a metric may get, as a fraction (default ${kCompareMarginDefault})
  --times MODE     auto (default): times gate only when both reports come from the same CPU model,
                   Node version and pinning; gate: always; info: never (ratios always gate)
  --all            list every row, not only the changed ones
  -h, --help       this text

Exit status: 0 no significant regression beyond the margin, 1 at least one, 2 bad input.`;

interface CompareCliOptions {
  readonly baseline: string;
  readonly current: string;
  readonly margin: number;
  readonly times: TimesMode;
  readonly all: boolean;
}

function parseCli(argv: readonly string[]): CompareCliOptions | 'help' {
  const parsed = parseCliArgs({
    args: [...argv],
    options: {
      margin: { type: 'string' },
      times: { type: 'string', default: 'auto' },
      all: { type: 'boolean', default: false },
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
  return { baseline: parsed.positionals[0] as string, current: parsed.positionals[1] as string, margin, times, all: v.all };
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
  const result = compareReports(baseline, current, { margin: options.margin, times: options.times, resamples: kResamplesDefault, seed: kBootstrapSeedDefault });
  const shown = options.all ? result.rows : result.rows.filter((r) => r.status !== 'unchanged');
  const table = shown.map((r) => [
    r.name,
    r.metric,
    showValue(r, r.baseline),
    showValue(r, r.current),
    formatInterval(r.change.ratio, r.change.ciLow, r.change.ciHigh),
    r.status === 'regression' ? (r.gating ? 'REGRESSION' : 'regression (info)') : r.status,
  ]);
  if (table.length > 0) io.out(`${formatTable(['bench', 'metric', 'baseline', 'current', 'change [95% CI]', 'status'], table)}\n\n`);
  else io.out(`every metric unchanged (no interval excludes 1)${options.all ? '' : '; --all lists them'}\n\n`);
  if (result.missing.length > 0) io.out(`only in BASELINE: ${result.missing.join(', ')}\n`);
  if (result.added.length > 0) io.out(`only in CURRENT: ${result.added.join(', ')}\n`);
  io.out(`${result.timesNote}\n`);
  if (result.ratiosNote !== null) io.out(`${result.ratiosNote}\n`);
  const benches = new Set(result.rows.map((r) => r.name)).size;
  const count = (s: string): number => result.rows.filter((r) => r.status === s).length;
  io.out(
    `compare: ${benches} ${benches === 1 ? 'bench' : 'benches'}, ${result.rows.length} metrics at margin ${(options.margin * 100).toFixed(0)}% — ` +
      `${result.regressions.length} ${result.regressions.length === 1 ? 'regression' : 'regressions'}, ${count('slower')} slower within margin, ${count('faster')} faster, ${count('unchanged')} unchanged` +
      `${count('too-few-rounds') > 0 ? `, ${count('too-few-rounds')} with too few rounds` : ''}\n`,
  );
  return result.regressions.length > 0 ? 1 : 0;
}
