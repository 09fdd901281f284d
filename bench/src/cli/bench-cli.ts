/**
 * `pnpm bench`: every bench as an interleaved A/B of checks on vs off, each variant in fresh child
 * processes, with a distribution-free interval on the ratio and a verdict against the margin.
 * Writes the `bench/1` JSON and its two side files, prints a table, and the summary last.
 * Exit 0: no gated check is shown to cost more than the margin; 1: one is (verdict fail) or a
 * gated bench measures nothing — with `--aa`, a case is not as expected; with `--ci`, a gated
 * ratio regressed significantly against the baseline, and nothing else; 2: bad usage.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { runAbRounds, type AbOutcome } from '../harness/ab-rounds.js';
import { gpuCases, type GpuCase } from '../gpu-kernels/gpu-cases.js';
import { addGpuSection } from '../gpu-kernels/gpu-report.js';
import { runGpuRounds, type GpuOutcome, type GpuRunOptions } from '../gpu-kernels/gpu-rounds.js';
import { allCases, matchesFilter, type BenchCase } from '../harness/bench-files.js';
import { kFullSettings, kQuickSettings, type RunSettings } from '../harness/measure-settings.js';
import { detectPinning, type Pinning } from '../harness/pinning.js';
import { bundleChildren } from '../harness/child-bundles.js';
import { kBenchDir, startChild } from '../harness/spawn-child.js';
import type { ChildPort, ChildStart } from '../harness/child-protocol.js';
import { kKvBytesPerTokenMax, kKvModelDefault, kKvModels, kvBytesPerToken } from '../host-pool/kv-models.js';
import { buildReport, describeLooks, describeReportLooks, formatConfidence, machineContext, parseReport, ReportFormatError, type BenchReport, type KvModelSetting } from '../report/bench-report.js';
import { compareReports, type CompareResult } from '../report/compare-reports.js';
import { formatInterval, formatNs, formatTable } from '../report/format-table.js';
import { bencherMetricFormat, githubActionBenchmark, sideFilePaths } from '../report/side-files.js';
import { kSeedDefault } from '../stats/seeded-random.js';
import { kMarginDefault, verdictPlan } from '../stats/verdict.js';
import { integerFlag, parseCliArgs } from './cli-args.js';
import type { CliIo } from './cli-io.js';
import { ProgressLine } from './progress-line.js';
import { UsageError } from './usage-error.js';

/** Where the JSON goes without `--json` (ignored by git: bench/out/). */
export const kJsonPathDefault = resolve(kBenchDir, 'out/bench.json');
/** The core children are pinned to by default. */
const kCpuDefault = 0;
/** Most rounds one run may ask for: a bound on the loop and on the report's size. */
const kRoundsLimit = 500;
/** Longest budget accepted (a day): catches minutes typed as seconds. */
const kBudgetSecondsMax = 86_400;

/** The two modes' verdict plans at the default margin, for the help text. */
const kQuickPlan = verdictPlan(kQuickSettings.rounds, kMarginDefault);
const kFullPlan = verdictPlan(kFullSettings.rounds, kMarginDefault);

const kHelp = `Usage: pnpm bench [--quick] [--json FILE] [--filter QUERY] [options]
       pnpm bench --quick --ci --baseline FILE        (CI: fail only on a significant regression)
       pnpm bench --aa [--quick]                      (A/A calibration of the harness)
       pnpm bench --list [--quick] [--gpu] [--filter QUERY]

Runs every bench as an A/B of its in-line checks: checks-off (the baseline) and checks-on each in
its own fresh child process per case per round, pinned to one core, taking turns slice by slice.
Each round gives a ratio (checks-on / checks-off): the median of its slice pairs' ratios. Verdicts
are read at planned looks, each with the median's distribution-free interval, the family's 95%
spent over the looks (half at the first, the rest shared by the later ones):
pass when the interval's upper bound is below 1 + margin, fail when its lower bound is above,
otherwise inconclusive (also when the rounds are too few for the confidence); an inconclusive case
runs on to the next look, up to the budget.
  --quick (pull-request mode): ${kQuickSettings.rounds.roundsMin} rounds, one look at ${formatConfidence(kQuickPlan.confidences[0] as number)}; about 4 minutes
  full (the gate):             looks at ${describeLooks(kFullPlan.looks, kFullPlan.confidences)}; about 30–45 minutes

Options:
  --quick             the pull-request mode (above)
  --json FILE         the bench/1 JSON (default ${relative(process.cwd(), kJsonPathDefault) || kJsonPathDefault});
                      FILE.github-action-benchmark.json and FILE.bmf.json are written beside it
  --filter QUERY      only benches whose address contains QUERY (or matches it, with * wildcards),
                      e.g. allocator-core:alloc-extend or '*8×64'
  --list              list the benches (with --quick: the quick ones) and exit
  --ci                CI mode, with --baseline FILE (a stored pnpm bench --json report of the same
                      mode): exit 1 only when a gated checks ratio regressed against it by more
                      than the margin, significantly (rank-sum interval of the change); a case's
                      own verdict never fails CI
  --baseline FILE     the report --ci compares against
  --aa                A/A calibration: the checks-on child runs with checks off too; each case
                      should pass with an interval holding 1; exit 1 when one fails or stays
                      undecided (the harness cannot resolve the margin for it)
  --model NAME        the model whose KV bytes per token the host pool's copy cycle copies:
                      ${kKvModels.map((m) => `${m.name} (${kvBytesPerToken(m)} B)`).join(', ')}; default ${kKvModelDefault.name}
  --kv-bytes-per-token N
                      the copy cycle's KV bytes per token directly (1 to ${kKvBytesPerTokenMax})
  --gpu               add the GPU benches (gpu-kernels:*, WebGPU through Dawn, in this process):
                      checked vs unchecked batch free (gating), and the extend/decode kernels
                      vs the CPU reference (informational); only them: --gpu --filter gpu-kernels
  --margin X          allowed cost of the checks as a fraction (default ${kMarginDefault})
  --seed N            seed of the schedule (default ${kSeedDefault})
  --cpu N             pin every child to core N with taskset (default ${kCpuDefault})
  --no-pin            do not pin
  --rounds-min N      the first look (default: quick ${kQuickSettings.rounds.roundsMin}, full ${kFullSettings.rounds.roundsMin})
  --rounds-max N      the last look (default: quick ${kQuickSettings.rounds.roundsMax}, full ${kFullSettings.rounds.roundsMax})
  --budget SECONDS    no round starts past this, once the first look is done (default: quick ${kQuickSettings.rounds.budgetSeconds}, full ${kFullSettings.rounds.budgetSeconds})
  -h, --help          this text

Gated ratios decide the exit status; informational ones (the host pool's bookkeeping-only cycle,
GPU / CPU) are reported and tracked, never gating.
Exit status: 0 no gated check shown to cost more than the margin (inconclusive never fails);
1 a gated check fails or a gated bench measures nothing (--aa: a case not as expected; --ci: a
significant regression against the baseline, nothing else); 2 bad usage.`;

interface BenchOptions {
  readonly settings: RunSettings;
  readonly json: string;
  readonly filter: string | null;
  readonly list: boolean;
  readonly margin: number;
  readonly seed: number;
  readonly cpu: number | null;
  readonly aa: boolean;
  readonly gpu: boolean;
  readonly kvModel: KvModelSetting;
  /** `--ci --baseline FILE`: the baseline report, read before the run. */
  readonly baseline: { readonly path: string; readonly report: BenchReport } | null;
}

/** The copy cycle's model from `--model` or `--kv-bytes-per-token` (at most one of them). */
function kvModelOf(model: string | undefined, bytes: string | undefined): KvModelSetting {
  if (model !== undefined && bytes !== undefined) throw new UsageError('--model and --kv-bytes-per-token contradict each other');
  if (bytes !== undefined) return { name: 'custom', kvBytesPerToken: integerFlag('--kv-bytes-per-token', bytes, 1, kKvBytesPerTokenMax) as number };
  const m = model === undefined ? kKvModelDefault : kKvModels.find((x) => x.name === model.toLowerCase());
  if (m === undefined) throw new UsageError(`--model ${model} is not one of ${kKvModels.map((x) => x.name).join(', ')}`);
  return { name: m.name, kvBytesPerToken: kvBytesPerToken(m) };
}

/** The baseline of `--ci`: a readable bench/1 report of the run's mode. */
function readBaseline(path: string, mode: RunSettings['mode']): BenchReport {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--baseline ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let report: BenchReport;
  try {
    report = parseReport(doc, `--baseline ${path}`);
  } catch (error) {
    if (error instanceof ReportFormatError) throw new UsageError(error.message);
    throw error;
  }
  if (report.aa) throw new UsageError(`--baseline ${path} is an A/A calibration run, not a baseline of the checks`);
  // Quick and full runs time cases differently (warm-up, slices), so a ratio is compared within a mode.
  if (report.mode !== mode) throw new UsageError(`--baseline ${path} is a ${report.mode} run; this is a ${mode} run (${mode === 'quick' ? 'store a --quick baseline' : 'drop --quick'})`);
  return report;
}

function parseCli(argv: readonly string[], io: CliIo): BenchOptions | 'help' {
  const parsed = parseCliArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      filter: { type: 'string' },
      list: { type: 'boolean', default: false },
      margin: { type: 'string' },
      seed: { type: 'string' },
      cpu: { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      aa: { type: 'boolean', default: false },
      ci: { type: 'boolean', default: false },
      baseline: { type: 'string' },
      model: { type: 'string' },
      'kv-bytes-per-token': { type: 'string' },
      gpu: { type: 'boolean', default: false },
      'rounds-min': { type: 'string' },
      'rounds-max': { type: 'string' },
      budget: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: false,
  });
  const v = parsed.values;
  if (v.help) return 'help';
  const base = v.quick ? kQuickSettings : kFullSettings;
  const margin = v.margin === undefined ? kMarginDefault : Number(v.margin);
  if (!(margin >= 0 && margin < 1)) throw new UsageError(`--margin ${v.margin} is not a fraction in [0, 1) (3% is 0.03)`);
  const roundsMin = integerFlag('--rounds-min', v['rounds-min'], 1, kRoundsLimit) ?? base.rounds.roundsMin;
  const roundsMax = integerFlag('--rounds-max', v['rounds-max'], 1, kRoundsLimit) ?? Math.max(base.rounds.roundsMax, roundsMin);
  if (roundsMin > roundsMax) throw new UsageError(`--rounds-min ${roundsMin} exceeds --rounds-max ${roundsMax}`);
  const budget = v.budget === undefined ? base.rounds.budgetSeconds : Number(v.budget);
  if (!(budget > 0 && budget <= kBudgetSecondsMax)) throw new UsageError(`--budget ${v.budget} is not a number of seconds in (0, ${kBudgetSecondsMax}]`);
  if (v['no-pin'] && v.cpu !== undefined) throw new UsageError('--cpu and --no-pin contradict each other');
  if (v.json === '') throw new UsageError('--json needs a file name');
  if (v.ci && v.baseline === undefined) throw new UsageError('--ci needs --baseline FILE (a stored pnpm bench --json report)');
  if (!v.ci && v.baseline !== undefined) throw new UsageError('--baseline is for --ci');
  if (v.ci && v.aa) throw new UsageError('--ci and --aa contradict each other');
  const kvModel = kvModelOf(v.model, v['kv-bytes-per-token']);
  const baselinePath = v.baseline === undefined ? null : resolve(io.baseDir, v.baseline);
  return {
    settings: { ...base, rounds: { roundsMin, roundsMax, budgetSeconds: budget } },
    json: v.json === undefined ? kJsonPathDefault : resolve(io.baseDir, v.json),
    filter: v.filter ?? null,
    list: v.list,
    margin,
    seed: integerFlag('--seed', v.seed, 0, 0xffffffff) ?? kSeedDefault,
    cpu: v['no-pin'] ? null : (integerFlag('--cpu', v.cpu, 0, 4095) ?? kCpuDefault),
    aa: v.aa,
    gpu: v.gpu,
    kvModel,
    baseline: baselinePath === null || v.list ? null : { path: baselinePath, report: readBaseline(baselinePath, base.mode) },
  };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
}

/** A verdict as the table shows it: a failing gated check shouts; an informational ratio says so. */
function verdictCell(verdict: string, informational: boolean): string {
  if (informational) return `${verdict} (info)`;
  return verdict === 'fail' ? 'FAIL' : verdict;
}

/** The ratio table, the GPU-vs-CPU table, the warnings, and the verdict lines (everything but the summary). */
export function formatReport(report: BenchReport): string {
  const byName = new Map(report.benches.map((b) => [b.name, b]));
  // Each case's interval is at the confidence of the look it stopped at: the header names them all.
  const confidence = describeReportLooks(report);
  const rows = report.ratios.filter((r) => r.metric === undefined).map((r) => {
    const b = byName.get(r.name);
    const nothing = b !== undefined && (b.variants['checks-off'].measuresNothing || b.variants['checks-on'].measuresNothing);
    return [
      r.name,
      r.rounds,
      b === undefined ? '—' : formatNs(b.variants['checks-off'].medianNs),
      b === undefined ? '—' : formatNs(b.variants['checks-on'].medianNs),
      formatInterval(r.ratio, r.ciLow, r.ciHigh),
      verdictCell(r.verdict, r.informational === true),
      nothing ? 'MEASURES NOTHING' : '',
    ];
  });
  const lines = [`intervals: ${confidence}`, formatTable(['bench', 'rounds', 'checks-off (baseline)', 'checks-on', 'ratio [CI]', 'verdict', 'flag'], rows)];
  if (report.gpu !== undefined && report.gpu.comparisons.length > 0) {
    const ratioOf = new Map(report.ratios.map((r) => [r.name, r]));
    const gpuRows = report.gpu.comparisons.map((c) => {
      const r = ratioOf.get(c.name);
      return [c.name, c.rounds, formatNs(c.variants.cpu.medianNs), formatNs(c.variants.gpu.medianNs), r === undefined ? '—' : formatInterval(r.ratio, r.ciLow, r.ciHigh), c.variants.gpu.measuresNothing ? 'DISPATCH OVERHEAD' : ''];
    });
    lines.push('', `GPU kernel vs CPU reference (informational; ${report.machine.gpu?.note ?? 'unknown adapter'}):`);
    lines.push(formatTable(['bench', 'rounds', 'cpu (baseline)', 'gpu', 'gpu / cpu [CI]', 'flag'], gpuRows));
  }
  const failed = report.ratios.filter((r) => r.verdict === 'fail' && r.informational !== true);
  if (failed.length > 0 && !report.aa) {
    lines.push('', `checks costing more than the ${pct(report.settings.margin)} margin (the margin stays; these checks need a redesign):`);
    for (const r of failed) lines.push(`  ${r.name}: +${pct(r.ratio - 1)} (${formatInterval(r.ratio, r.ciLow, r.ciHigh)})`);
  }
  const cal = report.calibration;
  if (cal !== undefined) {
    lines.push('', `A/A calibration (both arms ran checks off; every case should pass with an interval holding 1): ${cal.ok} as expected`);
    if (cal.falseFail.length > 0) lines.push(`  false fails (the harness reports a cost where there is none): ${cal.falseFail.join(', ')}`);
    if (cal.undecided.length > 0) lines.push(`  undecided (the rounds cannot resolve the margin for these at this budget): ${cal.undecided.join(', ')}`);
    if (cal.biased.length > 0) lines.push(`  passed, interval excludes 1 (an order effect, or one case in twenty by chance): ${cal.biased.join(', ')}`);
  }
  if (report.warnings.length > 0) lines.push('', ...report.warnings.map((w) => `warning: ${w}`));
  return lines.join('\n');
}

/** The one-line summary the CLI prints last. */
export function summaryLine(report: BenchReport, jsonShown: string): string {
  const s = report.summary;
  const pin = report.machine.taskset.used ? `pinned to cpu ${String(report.machine.taskset.cpu)}` : 'not pinned';
  return (
    `bench${report.mode === 'quick' ? ' --quick' : ''}${report.aa ? ' --aa' : ''}: ${s.benches} gated ${s.benches === 1 ? 'bench' : 'benches'}, ${report.rounds} ${report.rounds === 1 ? 'round' : 'rounds'}, ${report.children} children (${pin}${report.retries > 0 ? `, ${report.retries} disturbed slices retimed` : ''}) in ${report.elapsedSeconds.toFixed(1)}s — ` +
    `${s.pass} pass, ${s.fail} fail, ${s.inconclusive} inconclusive at margin ${pct(report.settings.margin)}` +
    `${s.measuringNothing > 0 ? `, ${s.measuringNothing} measuring nothing` : ''}${cpuInformational(report)}${gpuSummary(report)}; wrote ${jsonShown}`
  );
}

/** The informational checks ratios (pairs registered `gated: false`), as the summary line counts them. */
function cpuInformational(report: BenchReport): string {
  const n = report.ratios.filter((r) => r.informational === true && r.metric === undefined).length;
  return n === 0 ? '' : ` (+${n} informational)`;
}

/** The GPU part of the summary line: informational ratios, the adapter, how kernels were timed. */
function gpuSummary(report: BenchReport): string {
  const gpu = report.machine.gpu;
  if (report.gpu === undefined || gpu === undefined) return '';
  const adapter = gpu.description || gpu.device || gpu.vendor || 'unknown adapter';
  const informational = report.ratios.filter((r) => r.metric === 'gpu / cpu').length;
  return `; GPU ${adapter}${gpu.cpuEmulated ? ' (CPU-emulated)' : ''}, ${report.gpu.timing}${informational > 0 ? `, ${informational} informational GPU / CPU ${informational === 1 ? 'ratio' : 'ratios'}` : ''}`;
}

export interface BenchCliDeps {
  /** Starts one child from the run's bundles; tests replace it with a synthetic one. */
  readonly startChild: (start: ChildStart, pinning: Pinning) => Promise<ChildPort>;
  /** Readies the children of these bench files before the rounds (bundles them); tests leave it out. */
  readonly prepareChildren?: (files: readonly string[]) => Promise<void>;
  readonly detectPinning: (cpu: number | null) => Pinning;
  /** Runs the GPU group (`--gpu`); tests may shrink or replace it. */
  readonly runGpu?: (cases: readonly GpuCase[], options: GpuRunOptions) => Promise<GpuOutcome>;
}

const kRealDeps: BenchCliDeps = { startChild: (start, pinning) => startChild(start, pinning), prepareChildren: (files) => bundleChildren(files), detectPinning };

/** The `--ci` verdict: the gated checks ratios that regressed against the baseline, as lines, and the exit status. */
function ciLines(result: CompareResult, baselineShown: string, margin: number): { lines: string[]; status: number } {
  const ratioRows = result.rows.filter((r) => r.metric === 'checks ratio' && r.change !== null && r.status !== 'unchanged');
  const lines: string[] = [];
  if (ratioRows.length > 0) {
    lines.push(`checks ratios that moved against ${baselineShown} (change = current / baseline, rank-sum 95% interval):`);
    lines.push(
      formatTable(
        ['bench', 'baseline', 'current', 'change', 'status'],
        ratioRows.map((r) => [r.name, r.baseline.toFixed(3), r.current.toFixed(3), r.change === null ? '—' : formatInterval(r.change.ratio, r.change.ciLow, r.change.ciHigh), r.status === 'regression' ? (r.gating ? 'REGRESSION' : 'regression (info)') : r.status]),
      ),
    );
  }
  if (result.added.length > 0) lines.push(`not in the baseline (nothing to compare): ${result.added.join(', ')}`);
  if (result.ratiosNote !== null) lines.push(result.ratiosNote);
  const gated = result.regressions.filter((r) => r.metric === 'checks ratio');
  lines.push(
    `ci: ${gated.length === 0 ? 'no gated checks ratio regressed' : `${gated.length} gated checks ${gated.length === 1 ? 'ratio' : 'ratios'} regressed`} by more than ${pct(margin)} against ${baselineShown}` +
      `${result.informationalRegressions.length > 0 ? `; informational regressions (not failing): ${result.informationalRegressions.map((r) => r.name).join(', ')}` : ''}`,
  );
  return { lines, status: gated.length > 0 ? 1 : 0 };
}

/** The exit status of a finished run (not `--ci`). */
function runStatus(report: BenchReport): number {
  if (report.summary.measuringNothing > 0) return 1;
  if (report.calibration !== undefined) return report.calibration.falseFail.length + report.calibration.undecided.length > 0 ? 1 : 0;
  return report.summary.fail > 0 ? 1 : 0;
}

/** Runs the CLI; returns the exit status. */
export async function benchMain(argv: readonly string[], io: CliIo, deps: BenchCliDeps = kRealDeps): Promise<number> {
  let options;
  try {
    options = parseCli(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`pnpm bench: ${error.message}\n(see pnpm bench --help)\n`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    io.out(`${kHelp}\n`);
    return 0;
  }
  const quick = options.settings.mode === 'quick';
  const all = await allCases(quick);
  const cases: BenchCase[] = options.filter === null ? all : all.filter((c) => matchesFilter(c.name, options.filter as string));
  const gpuAll = gpuCases(quick);
  const gpuSelected = !options.gpu ? [] : options.filter === null ? gpuAll : gpuAll.filter((c) => matchesFilter(c.name, options.filter as string));
  if (cases.length + gpuSelected.length === 0) {
    const gpuHint = !options.gpu && gpuAll.some((c) => matchesFilter(c.name, options.filter as string)) ? '; GPU benches run with --gpu' : '';
    io.err(`pnpm bench: --filter ${String(options.filter)}: 0 matched of ${all.length + (options.gpu ? gpuAll.length : 0)} ${quick ? 'quick ' : ''}benches (see pnpm bench --list${quick ? ' --quick' : ''}${options.gpu ? ' --gpu' : ''})${gpuHint}\n`);
    return 2;
  }
  if (options.list) {
    const rows = [...cases.map((c) => [c.name, c.pair.gated ? 'gated' : 'info', `bench/src/${c.file}`]), ...gpuSelected.map((c) => [c.name, c.kind === 'checks' ? 'gated' : 'info', `bench/src/${c.file}`])];
    io.out(`${formatTable(['bench', 'gate', 'file'], rows)}\n\n`);
    const fileCount = new Set(cases.map((c) => c.file)).size;
    const ungated = cases.filter((c) => !c.pair.gated).length;
    const counts: string[] = [];
    if (cases.length > 0) counts.push(`${cases.length} ${quick ? 'quick ' : ''}benches in ${fileCount} ${fileCount === 1 ? 'file' : 'files'}, each a checks-on / checks-off pair (baseline: checks-off)${ungated > 0 ? `, ${ungated} informational` : ''}`);
    if (gpuSelected.length > 0) {
      const checks = gpuSelected.filter((c) => c.kind === 'checks').length;
      counts.push(`${gpuSelected.length} ${quick ? 'quick ' : ''}GPU benches: ${checks} checked / unchecked free ${checks === 1 ? 'pair' : 'pairs'}, ${gpuSelected.length - checks} GPU-vs-CPU ${gpuSelected.length - checks === 1 ? 'comparison' : 'comparisons'} (informational)`);
    }
    io.out(`${counts.join('; ')}\n`);
    return 0;
  }
  const pinning = deps.detectPinning(options.cpu);
  const loadStart = loadavg();
  const progress = new ProgressLine(io.err, io.tty);
  const files = new Set(cases.map((c) => c.file)).size;
  const plan = verdictPlan(options.settings.rounds, options.margin);
  const gpuNote = gpuSelected.length > 0 ? ` and ${gpuSelected.length} GPU benches (after them, in this process)` : '';
  io.err(
    `${quick ? 'quick' : 'full'} run: ${cases.length} benches in ${files} ${files === 1 ? 'file' : 'files'}${gpuNote}, looks at ${describeLooks(plan.looks, plan.confidences)}, ` +
      `budget ${options.settings.rounds.budgetSeconds}s; host pool copy cycle: ${options.kvModel.name}, ${options.kvModel.kvBytesPerToken} B/token; ${pinning.note}\n`,
  );
  if (options.settings.rounds.roundsMin < plan.roundsForVerdict) io.err(`note: a verdict at ${formatConfidence(plan.confidences[0] as number)} needs ${plan.roundsForVerdict} rounds; cases stopped before that stay inconclusive\n`);
  let outcome: AbOutcome = { cases: [], roundsRun: 0, elapsedSeconds: 0, stopReason: 'decided', children: 0, retries: 0 };
  let gpuOutcome: GpuOutcome | null = null;
  try {
    if (cases.length > 0) await deps.prepareChildren?.([...new Set(cases.map((c) => c.file))]);
    if (cases.length > 0) outcome = await runAbRounds(cases, {
      settings: options.settings,
      pinning,
      seed: options.seed,
      margin: options.margin,
      aa: options.aa,
      context: { kvBytesPerToken: options.kvModel.kvBytesPerToken },
      startChild: deps.startChild,
      onProgress: (p) =>
        progress.update(
          () =>
            `[round ${p.round}/${options.settings.rounds.roundsMax}] ${p.caseName}  ${p.elapsedSeconds.toFixed(0)}s/${options.settings.rounds.budgetSeconds}s  children ${p.children}  ` +
            `pass ${p.pass} fail ${p.fail} inconclusive ${p.inconclusive}`,
        ),
    });
    if (gpuSelected.length > 0) {
      gpuOutcome = await (deps.runGpu ?? runGpuRounds)(gpuSelected, {
        settings: options.settings,
        seed: options.seed,
        margin: options.margin,
        aa: options.aa,
        onProgress: (p) => progress.update(() => `[gpu round ${p.round}/${options.settings.rounds.roundsMax}] ${p.caseName}  ${p.elapsedSeconds.toFixed(0)}s/${options.settings.rounds.budgetSeconds}s`),
      });
    }
  } finally {
    progress.done();
  }
  const cpuReport = buildReport({
    outcome,
    settings: options.settings,
    filter: options.filter,
    aa: options.aa,
    margin: options.margin,
    seed: options.seed,
    kvModel: options.kvModel,
    machine: machineContext(pinning, loadStart),
    createdAt: new Date(),
  });
  const report = gpuOutcome === null ? cpuReport : addGpuSection(cpuReport, gpuOutcome, plan);
  const side = sideFilePaths(options.json);
  mkdirSync(dirname(options.json), { recursive: true });
  writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(side.githubActionBenchmark, `${JSON.stringify(githubActionBenchmark(report), null, 2)}\n`);
  writeFileSync(side.bencher, `${JSON.stringify(bencherMetricFormat(report), null, 2)}\n`);
  io.out(`${formatReport(report)}\n\n`);
  const shownPath = (path: string): string => {
    const shown = relative(io.baseDir, path) || path;
    return shown.startsWith('..') ? path : shown;
  };
  let status = runStatus(report);
  if (options.baseline !== null) {
    const ci = ciLines(compareReports(options.baseline.report, report, { margin: options.margin, times: 'info' }), shownPath(options.baseline.path), options.margin);
    io.out(`${ci.lines.join('\n')}\n\n`);
    status = ci.status;
  }
  io.out(`${summaryLine(report, `${shownPath(options.json)} (+ .github-action-benchmark.json, .bmf.json)`)}\n`);
  return status;
}
