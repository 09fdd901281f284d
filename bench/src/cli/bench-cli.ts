/**
 * `pnpm bench`: every bench as an interleaved A/B of checks on vs off, each variant in fresh child
 * processes, with a bootstrap interval on the ratio and a verdict against the margin. Writes the
 * `bench/1` JSON and its two side files, prints a table, and the summary last.
 * Exit 0: no check costs more than the margin; 1: a check does (verdict fail) or a bench measures
 * nothing; 2: bad usage.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { runAbRounds, type AbOutcome } from '../harness/ab-rounds.js';
import { gpuCases, type GpuCase } from '../gpu-kernels/gpu-cases.js';
import { addGpuSection } from '../gpu-kernels/gpu-report.js';
import { runGpuRounds, type GpuOutcome, type GpuRunOptions } from '../gpu-kernels/gpu-rounds.js';
import { allCases, matchesFilter, type BenchCase } from '../harness/bench-files.js';
import { kFullSettings, kQuickSettings, type Layout, type RunSettings } from '../harness/measure-settings.js';
import { detectPinning, type Pinning } from '../harness/pinning.js';
import { childBundleDirFor, prepareChildren } from '../harness/child-bundles.js';
import { kBenchDir, startChild } from '../harness/spawn-child.js';
import type { ChildPort, ChildStart } from '../harness/child-protocol.js';
import { buildReport, machineContext, type BenchReport } from '../report/bench-report.js';
import { formatInterval, formatNs, formatTable } from '../report/format-table.js';
import { bencherMetricFormat, githubActionBenchmark, sideFilePaths } from '../report/side-files.js';
import { kBootstrapSeedDefault, kResamplesDefault, kResamplesMax, kResamplesMin } from '../stats/bootstrap.js';
import { kMarginDefault, kRoundsForVerdictMin } from '../stats/verdict.js';
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

const kHelp = `Usage: pnpm bench [--quick] [--gpu] [--json FILE] [--filter QUERY] [options]
       pnpm bench --list [--quick] [--gpu] [--filter QUERY]

Runs every bench as an A/B of its in-line checks: checks-off (the baseline) and checks-on each in
its own fresh child process per round (node --import tsx), taking turns slice by slice in a random
order, file after file in a shuffled order, round after round. Each round gives a ratio of
medians (checks-on / checks-off); a bootstrap over rounds gives its 95% interval. Verdict: pass
when the interval's upper bound is below 1 + margin, fail when its lower bound is above,
otherwise inconclusive, which earns more rounds up to the budget.

Options:
  --quick             few rounds, short measurements (about 1.5 minutes); use while developing
  --json FILE         the bench/1 JSON (default ${relative(process.cwd(), kJsonPathDefault) || kJsonPathDefault});
                      FILE.github-action-benchmark.json and FILE.bmf.json are written beside it
  --filter QUERY      only benches whose address contains QUERY (or matches it, with * wildcards),
                      e.g. allocator-core:alloc-extend or '*8×64'
  --list              list the benches (with --quick: the quick ones) and exit
  --gpu               add the GPU benches (gpu-kernels:*, WebGPU through Dawn, in this process):
                      checked vs unchecked batch free (gating), and the extend/decode kernels
                      vs the CPU reference (informational); only them: --gpu --filter gpu-kernels
  --margin X          allowed cost of the checks as a fraction (default ${kMarginDefault})
  --seed N            seed of the schedule and the bootstrap (default ${kBootstrapSeedDefault})
  --resamples N       bootstrap resamples (default ${kResamplesDefault})
  --cpu N             pin every child to core N with taskset (default ${kCpuDefault})
  --no-pin            do not pin
  --isolation case|file
                      what one pair of children holds (default case): one case, so a case's
                      JIT state is its own and a --filter run measures it as the full run does;
                      file: every case of a file in file order (fewer process starts, but a
                      case's ratio then depends on the cases run before it)
  --layout bundle|modules
                      how a child loads the code (default bundle): one esbuild bundle of the
                      bench file and the packages' sources; modules: the packages as separate
                      ES modules from their tsc-built dist/, as an installed package is loaded
                      (built first); V8 compiles the two differently, and some ratios move by
                      up to 0.1 between them
  --aa                A/A calibration: run the checks-on child with checks off too; every
                      ratio should then pass with an interval around 1 (tests the harness)
  --rounds-min N      rounds before a decided bench stops (default: quick ${kQuickSettings.rounds.roundsMin}, full ${kFullSettings.rounds.roundsMin})
  --rounds-max N      rounds at most (default: quick ${kQuickSettings.rounds.roundsMax}, full ${kFullSettings.rounds.roundsMax})
  --budget SECONDS    no round starts past this (default: quick ${kQuickSettings.rounds.budgetSeconds}, full ${kFullSettings.rounds.budgetSeconds})
  -h, --help          this text

Exit status: 0 every check within the margin or undecided; 1 a check costs more than the margin
(verdict fail) or a bench measures nothing; 2 bad usage.`;

interface BenchOptions {
  readonly settings: RunSettings;
  readonly json: string;
  readonly filter: string | null;
  readonly list: boolean;
  readonly margin: number;
  readonly seed: number;
  readonly resamples: number;
  readonly cpu: number | null;
  readonly aa: boolean;
  readonly gpu: boolean;
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
      resamples: { type: 'string' },
      cpu: { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      aa: { type: 'boolean', default: false },
      gpu: { type: 'boolean', default: false },
      isolation: { type: 'string' },
      layout: { type: 'string' },
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
  const isolation = v.isolation ?? base.isolation;
  if (isolation !== 'case' && isolation !== 'file') throw new UsageError(`--isolation ${isolation} is not case or file`);
  const layout = v.layout ?? base.layout;
  if (layout !== 'bundle' && layout !== 'modules') throw new UsageError(`--layout ${layout} is not bundle or modules`);
  return {
    settings: { ...base, isolation, layout, rounds: { roundsMin, roundsMax, budgetSeconds: budget } },
    json: v.json === undefined ? kJsonPathDefault : resolve(io.baseDir, v.json),
    filter: v.filter ?? null,
    list: v.list,
    margin,
    seed: integerFlag('--seed', v.seed, 0, 0xffffffff) ?? kBootstrapSeedDefault,
    resamples: integerFlag('--resamples', v.resamples, kResamplesMin, kResamplesMax) ?? kResamplesDefault,
    cpu: v['no-pin'] ? null : (integerFlag('--cpu', v.cpu, 0, 4095) ?? kCpuDefault),
    aa: v.aa,
    gpu: v.gpu,
  };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
}

/** The ratio table, the GPU-vs-CPU table, the warnings, and the verdict lines (everything but the summary). */
export function formatReport(report: BenchReport): string {
  const byName = new Map(report.benches.map((b) => [b.name, b]));
  const rows = report.ratios.filter((r) => r.informational !== true).map((r) => {
    const b = byName.get(r.name);
    const nothing = b !== undefined && (b.variants['checks-off'].measuresNothing || b.variants['checks-on'].measuresNothing);
    return [
      r.name,
      r.rounds,
      b === undefined ? '—' : formatNs(b.variants['checks-off'].medianNs),
      b === undefined ? '—' : formatNs(b.variants['checks-on'].medianNs),
      formatInterval(r.ratio, r.ciLow, r.ciHigh),
      r.verdict === 'fail' ? 'FAIL' : r.verdict,
      nothing ? 'MEASURES NOTHING' : '',
    ];
  });
  const lines = [formatTable(['bench', 'rounds', 'checks-off (baseline)', 'checks-on', `ratio [${Math.round(report.settings.confidence * 100)}% CI]`, 'verdict', 'flag'], rows)];
  if (report.gpu !== undefined && report.gpu.comparisons.length > 0) {
    const ratioOf = new Map(report.ratios.map((r) => [r.name, r]));
    const gpuRows = report.gpu.comparisons.map((c) => {
      const r = ratioOf.get(c.name);
      return [c.name, c.rounds, formatNs(c.variants.cpu.medianNs), formatNs(c.variants.gpu.medianNs), r === undefined ? '—' : formatInterval(r.ratio, r.ciLow, r.ciHigh), c.variants.gpu.measuresNothing ? 'DISPATCH OVERHEAD' : ''];
    });
    lines.push('', `GPU kernel vs CPU reference (informational; ${report.machine.gpu?.note ?? 'unknown adapter'}):`);
    lines.push(formatTable(['bench', 'rounds', 'cpu (baseline)', 'gpu', `gpu / cpu [${Math.round(report.settings.confidence * 100)}% CI]`, 'flag'], gpuRows));
  }
  const failed = report.ratios.filter((r) => r.verdict === 'fail' && r.informational !== true);
  if (failed.length > 0) {
    lines.push('', `checks costing more than the ${pct(report.settings.margin)} margin (the margin stays; these checks need a redesign):`);
    for (const r of failed) lines.push(`  ${r.name}: +${pct(r.ratio - 1)} (${formatInterval(r.ratio, r.ciLow, r.ciHigh)})`);
  }
  if (report.warnings.length > 0) lines.push('', ...report.warnings.map((w) => `warning: ${w}`));
  return lines.join('\n');
}

/** The one-line summary the CLI prints last. */
export function summaryLine(report: BenchReport, jsonShown: string): string {
  const s = report.summary;
  const pin = report.machine.taskset.used ? `pinned to cpu ${String(report.machine.taskset.cpu)}` : 'not pinned';
  return (
    `bench${report.mode === 'quick' ? ' --quick' : ''}${report.aa ? ' --aa' : ''}${report.settings.layout === 'modules' ? ' --layout modules' : ''}: ${s.benches} ${s.benches === 1 ? 'bench' : 'benches'}, ${report.rounds} ${report.rounds === 1 ? 'round' : 'rounds'}, ${report.children} children (${pin}${report.retries > 0 ? `, ${report.retries} disturbed slices retimed` : ''}) in ${report.elapsedSeconds.toFixed(1)}s — ` +
    `${s.pass} pass, ${s.fail} fail, ${s.inconclusive} inconclusive at margin ${pct(report.settings.margin)}` +
    `${s.measuringNothing > 0 ? `, ${s.measuringNothing} measuring nothing` : ''}${gpuSummary(report)}; wrote ${jsonShown}`
  );
}

/** The GPU part of the summary line: informational ratios, the adapter, how kernels were timed. */
function gpuSummary(report: BenchReport): string {
  const gpu = report.machine.gpu;
  if (report.gpu === undefined || gpu === undefined) return '';
  const adapter = gpu.description || gpu.device || gpu.vendor || 'unknown adapter';
  const informational = report.summary.informational ?? 0;
  return `; GPU ${adapter}${gpu.cpuEmulated ? ' (CPU-emulated)' : ''}, ${report.gpu.timing}${informational > 0 ? `, ${informational} informational GPU / CPU ${informational === 1 ? 'ratio' : 'ratios'}` : ''}`;
}

export interface BenchCliDeps {
  /** Starts one child from the bundles in `bundleDir`; tests replace it with a synthetic one. */
  readonly startChild: (start: ChildStart, pinning: Pinning, bundleDir: string) => Promise<ChildPort>;
  /** Readies the children of these bench files before the rounds (bundles them in the layout); tests leave it out. */
  readonly prepareChildren?: (files: readonly string[], layout: Layout) => Promise<void>;
  readonly detectPinning: (cpu: number | null) => Pinning;
  /** Runs the GPU group (`--gpu`); tests may shrink or replace it. */
  readonly runGpu?: (cases: readonly GpuCase[], options: GpuRunOptions) => Promise<GpuOutcome>;
}

const kRealDeps: BenchCliDeps = { startChild, prepareChildren, detectPinning };

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
    const rows = [...cases.map((c) => [c.name, `bench/src/${c.file}`]), ...gpuSelected.map((c) => [c.name, `bench/src/${c.file}`])];
    io.out(`${formatTable(['bench', 'file'], rows)}\n\n`);
    const fileCount = new Set(cases.map((c) => c.file)).size;
    const counts: string[] = [];
    if (cases.length > 0) counts.push(`${cases.length} ${quick ? 'quick ' : ''}benches in ${fileCount} ${fileCount === 1 ? 'file' : 'files'}, each a checks-on / checks-off pair (baseline: checks-off)`);
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
  const gpuNote = gpuSelected.length > 0 ? ` and ${gpuSelected.length} GPU benches (after them, in this process)` : '';
  io.err(`${quick ? 'quick' : 'full'} run: ${cases.length} benches in ${files} ${files === 1 ? 'file' : 'files'}${gpuNote}, ${options.settings.rounds.roundsMin}–${options.settings.rounds.roundsMax} rounds, budget ${options.settings.rounds.budgetSeconds}s; ${pinning.note}\n`);
  let outcome: AbOutcome = { cases: [], roundsRun: 0, elapsedSeconds: 0, stopReason: 'decided', children: 0, retries: 0 };
  let gpuOutcome: GpuOutcome | null = null;
  try {
    const layout = options.settings.layout;
    if (cases.length > 0 && layout === 'modules' && deps.prepareChildren !== undefined) io.err('--layout modules: building the packages (tsc) and bundling the bench files without them\n');
    if (cases.length > 0) await deps.prepareChildren?.([...new Set(cases.map((c) => c.file))], layout);
    if (cases.length > 0) outcome = await runAbRounds(cases, {
      settings: options.settings,
      pinning,
      seed: options.seed,
      margin: options.margin,
      resamples: options.resamples,
      aa: options.aa,
      startChild: (start, pin) => deps.startChild(start, pin, childBundleDirFor(layout)),
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
        resamples: options.resamples,
        aa: options.aa,
        onProgress: (p) => progress.update(() => `[gpu round ${p.round}/${options.settings.rounds.roundsMax}] ${p.caseName}  ${p.elapsedSeconds.toFixed(0)}s/${options.settings.rounds.budgetSeconds}s`),
      });
    }
  } finally {
    progress.done();
  }
  if (gpuOutcome !== null && gpuOutcome.roundsRun < kRoundsForVerdictMin) io.err(`note: the GPU benches ran ${gpuOutcome.roundsRun} rounds, fewer than the ${kRoundsForVerdictMin} a verdict needs; their verdicts are inconclusive\n`);
  if (cases.length > 0 && outcome.roundsRun < kRoundsForVerdictMin) io.err(`note: ${outcome.roundsRun} rounds are fewer than the ${kRoundsForVerdictMin} a verdict needs; every verdict is inconclusive\n`);
  const cpuReport = buildReport({
    outcome,
    settings: options.settings,
    filter: options.filter,
    aa: options.aa,
    margin: options.margin,
    resamples: options.resamples,
    seed: options.seed,
    machine: machineContext(pinning, loadStart),
    createdAt: new Date(),
  });
  const report = gpuOutcome === null ? cpuReport : addGpuSection(cpuReport, gpuOutcome, { margin: options.margin, resamples: options.resamples, seed: options.seed });
  const side = sideFilePaths(options.json);
  mkdirSync(dirname(options.json), { recursive: true });
  writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(side.githubActionBenchmark, `${JSON.stringify(githubActionBenchmark(report), null, 2)}\n`);
  writeFileSync(side.bencher, `${JSON.stringify(bencherMetricFormat(report), null, 2)}\n`);
  io.out(`${formatReport(report)}\n\n`);
  const shown = relative(io.baseDir, options.json) || options.json;
  io.out(`${summaryLine(report, `${shown.startsWith('..') ? options.json : shown} (+ .github-action-benchmark.json, .bmf.json)`)}\n`);
  return report.summary.fail > 0 || report.summary.measuringNothing > 0 ? 1 : 0;
}
