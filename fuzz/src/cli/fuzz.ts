/**
 * `pnpm fuzz`: time-boxed fuzz campaigns over every model, with a live progress line and a summary
 * table. Exit 0 when nothing failed, 1 on a failure, 2 on bad usage. Run `pnpm fuzz --help`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ModelRunReport } from '../models/run-model.js';
import { formatTable } from './format-table.js';
import { kFuzzTargets, kPlannedTargets, targetOfMutant, type FuzzTarget } from './fuzz-targets.js';
import { ProgressLine } from './progress-line.js';
import { UsageError } from './usage-error.js';

const kTargetNames = kFuzzTargets.map((t) => t.name);

/** Default campaign length: the README's main command runs about a minute. */
const kTimeSecondsDefault = 60;
/** Longest single campaign we accept (a day): a bound on the loop, and catches a typo in minutes vs seconds. */
const kTimeSecondsMax = 86_400;

const kHelp = `Usage: pnpm fuzz [options]

Runs time-boxed fuzz campaigns: random geometries and command sequences against each model, the
page ledger as the oracle, a drain at the end of every run.

Options:
  --target NAME    ${kTargetNames.join(' | ')} | all (default all)
  --time SECONDS   time budget for the whole campaign (default ${kTimeSecondsDefault})
  --seed N         fast-check seed (default: random; printed either way)
  --mutant NAME    run a planted bug's model against it instead of the reference (see --list)
  --json FILE      write campaign statistics as JSON
  --list           list targets and mutants, then exit
  -h, --help       this text

Exit status: 0 nothing failed, 1 a failure was found, 2 bad usage.`;

interface CliOptions {
  readonly targets: readonly FuzzTarget[];
  readonly timeSeconds: number;
  readonly seed: number;
  readonly mutant: string | null;
  readonly json: string | null;
}

function parseCli(argv: readonly string[]): CliOptions | 'help' | 'list' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        target: { type: 'string', default: 'all' },
        time: { type: 'string' },
        seed: { type: 'string' },
        mutant: { type: 'string' },
        json: { type: 'string' },
        list: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (v.list) return 'list';
  const target = v.target ?? 'all';
  let targets: readonly FuzzTarget[];
  const named = kFuzzTargets.find((t) => t.name === target);
  if (target === 'all') targets = kFuzzTargets;
  else if (named !== undefined) targets = [named];
  else if (kPlannedTargets.includes(target)) throw new UsageError(`--target ${target}: that model is not built yet; available: ${kTargetNames.join(', ')}, all`);
  else throw new UsageError(`--target ${target} is not a target; choose one of ${kTargetNames.join(', ')}, all`);
  const timeSeconds = v.time === undefined ? kTimeSecondsDefault : Number(v.time);
  if (!Number.isFinite(timeSeconds) || timeSeconds <= 0 || timeSeconds > kTimeSecondsMax) {
    throw new UsageError(`--time ${v.time} is not a number of seconds in (0, ${kTimeSecondsMax}]`);
  }
  const seed = v.seed === undefined ? (Math.random() * 0x7fffffff) | 0 : Number(v.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed ${v.seed} is not an integer`);
  if (v.mutant !== undefined) {
    const owner = targetOfMutant(v.mutant);
    if (owner === undefined) throw new UsageError(`--mutant ${v.mutant} is not a mutant; --list shows them`);
    if (target !== 'all' && owner !== named) throw new UsageError(`--mutant ${v.mutant} belongs to --target ${owner.name}, not ${target}`);
    targets = [owner];
  }
  return { targets, timeSeconds, seed: seed | 0, mutant: v.mutant ?? null, json: v.json ?? null };
}

function listAll(): string {
  const rows = kFuzzTargets.flatMap((t) => t.mutants.map((m) => [m.name, t.name, `§11.${m.item}`, m.mode, m.mechanism]));
  return `targets: ${kTargetNames.join(', ')} (planned: ${kPlannedTargets.join(', ')})\n\n${formatTable(['mutant', 'model', 'item', 'mode', 'mechanism'], rows)}`;
}

interface TargetResult {
  readonly target: string;
  readonly mutant: string | null;
  readonly mode: 'contract' | 'exact';
  readonly report: ModelRunReport<unknown>;
  readonly failureText: string;
}

function runTarget(target: FuzzTarget, options: CliOptions, timeMs: number, progress: ProgressLine): TargetResult {
  const started = Date.now();
  let runs = 0;
  let commands = 0;
  const label = options.mutant === null ? target.name : `${target.name} × ${options.mutant}`;
  const { report, mode } = target.run(
    {
      seed: options.seed,
      numRuns: Number.MAX_SAFE_INTEGER,
      timeLimitMs: timeMs,
      onRun: (executed) => {
        runs++;
        commands += executed;
        progress.update(() => {
          const s = (Date.now() - started) / 1000;
          return `[${label}] ${s.toFixed(1)}s/${(timeMs / 1000).toFixed(0)}s  runs ${runs}  commands ${commands}  ${Math.round(commands / Math.max(s, 1e-3))} cmd/s  failures 0`;
        });
      },
    },
    options.mutant,
  );
  progress.done();
  return { target: target.name, mutant: options.mutant, mode, report, failureText: report.failed ? target.formatFailure(report) : '' };
}

function summarize(results: readonly TargetResult[], options: CliOptions): string {
  const rows = results.map(({ target, mutant, mode, report }) => [
    mutant === null ? target : `${target} × ${mutant}`,
    mode,
    report.runs,
    report.commands,
    Math.round(report.commands / Math.max(report.elapsedMs / 1000, 1e-3)),
    report.failed ? 1 : 0,
    report.failed ? `FAILED (${report.failure?.rule}) after ${((report.detectMs ?? 0) / 1000).toFixed(2)}s` : 'ok',
  ]);
  const runs = results.reduce((n, r) => n + r.report.runs, 0);
  const commands = results.reduce((n, r) => n + r.report.commands, 0);
  const failures = results.filter((r) => r.report.failed).length;
  const seconds = results.reduce((n, r) => n + r.report.elapsedMs, 0) / 1000;
  return [
    formatTable(['target', 'mode', 'runs', 'commands', 'cmd/s', 'failures', 'result'], rows),
    '',
    `seed ${options.seed}: ${runs} runs, ${commands} commands in ${seconds.toFixed(1)}s; ${failures} ${failures === 1 ? 'failure' : 'failures'}`,
  ].join('\n');
}

function toJson(results: readonly TargetResult[], options: CliOptions): unknown {
  return {
    kvfuzz: 'fuzz-campaign/1',
    seed: options.seed,
    timeSeconds: options.timeSeconds,
    targets: results.map(({ target, mutant, mode, report }) => ({
      target,
      mutant,
      mode,
      runs: report.runs,
      commands: report.commands,
      elapsedMs: Math.round(report.elapsedMs),
      commandsPerSecond: Math.round(report.commands / Math.max(report.elapsedMs / 1000, 1e-3)),
      failed: report.failed,
      detectMs: report.detectMs === null ? null : Math.round(report.detectMs),
      failure: report.failure === null ? null : { ...report.failure, signature: `${target}:${report.failure.rule}` },
    })),
  };
}

function main(argv: readonly string[]): number {
  let options;
  try {
    options = parseCli(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`pnpm fuzz: ${error.message}\n(see pnpm fuzz --help)\n`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    process.stdout.write(`${kHelp}\n`);
    return 0;
  }
  if (options === 'list') {
    process.stdout.write(`${listAll()}\n`);
    return 0;
  }
  const progress = new ProgressLine();
  const sliceMs = (options.timeSeconds * 1000) / options.targets.length;
  const results = options.targets.map((target) => runTarget(target, options, sliceMs, progress));
  for (const { failureText } of results) if (failureText !== '') process.stdout.write(`${failureText}\n\n`);
  if (options.json !== null) writeFileSync(resolve(process.env['INIT_CWD'] ?? process.cwd(), options.json), `${JSON.stringify(toJson(results, options), null, 2)}\n`);
  process.stdout.write(`${summarize(results, options)}\n`);
  return results.some((r) => r.report.failed) ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
