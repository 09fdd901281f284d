/**
 * `pnpm bench:history`: the tracked metrics over commits.
 *   add     appends one `bench-history/1` record (bench ratios, fuzz throughput, times to detect)
 *   report  writes the self-contained HTML report with one chart per metric
 *   list    prints the recorded runs
 * Exit 0: done; 1: `add` refused a commit + mode already recorded (without --replace);
 * 2: bad usage, an unreadable or malformed input or history file, or git failed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { parseCliArgs } from '../cli/cli-args.js';
import type { CliIo } from '../cli/cli-io.js';
import { writeJsonFile } from '../cli/json-file.js';
import { UsageError } from '../cli/usage-error.js';
import { kBenchDir } from '../harness/spawn-child.js';
import { historyHtml } from '../report/history-html.js';
import { formatTable } from '../report/format-table.js';
import { benchPart } from './bench-input.js';
import { DuplicateRecordError, GitCommitError, HistoryFileError, HistoryInputError } from './errors.js';
import { fuzzPart } from './fuzz-input.js';
import { readGitCommit } from './git-commit.js';
import { addRecord, readHistory } from './history-file.js';
import { chartOrder } from './history-record.js';
import { killTablePart } from './kill-table-input.js';
import { readInput } from './read-input.js';
import { kHistorySchema, type CommitInfo, type HistoryRecord } from './types.js';

/** The committed history. */
export const kHistoryPathDefault = resolve(kBenchDir, 'history/history.jsonl');
/** Where the report goes without `--out` (ignored by git: bench/out/). */
export const kReportPathDefault = resolve(kBenchDir, 'out/history.html');

const kHelp = `Usage: pnpm bench:history add --bench FILE [--fuzz FILE] [--kill-table FILE] [--commit REV [--dirty]] [--replace]
       pnpm bench:history report [--out FILE]
       pnpm bench:history list
Common options: --history FILE (default bench/history/history.jsonl), --json FILE, -h/--help

Tracks the kvfuzz metrics over commits in a JSON-lines file, one bench-history/1 record per run:
every checks ratio with its interval (from pnpm bench --json FILE), the fuzz throughput per target
(pnpm fuzz --time S --json FILE) and each planted mutant's time to detect (pnpm fuzz --kill-table
--json FILE).

  add      validate the inputs and append a record for the checked-out commit (or --commit REV);
           a commit + mode already recorded is refused unless --replace. Whether the tree had
           uncommitted changes is read from git for HEAD; --dirty says so for a --commit REV run
           (HEAD moved while the inputs were made). --json FILE: the record
  report   write the HTML report, one chart per metric over commits and the latest values
           (default --out ${relative(process.cwd(), kReportPathDefault) || kReportPathDefault}). --json FILE: the chart data
  list     one line per record. --json FILE: the records

Exit status: 0 done; 1 add refused a duplicate; 2 bad usage, a bad input or history file, or git failed.`;

/** What the CLI needs from the outside world; tests replace it. */
export interface HistoryCliDeps {
  /** Names `rev`; changes to `historyPath` alone do not make it dirty. */
  readonly gitCommit: (rev: string, historyPath: string) => CommitInfo;
  readonly now: () => Date;
}

const kRealDeps: HistoryCliDeps = { gitCommit: (rev, historyPath) => readGitCommit(kBenchDir, rev, [historyPath]), now: () => new Date() };

interface Options {
  readonly command: 'add' | 'report' | 'list';
  readonly history: string;
  readonly json: string | null;
  readonly bench: string | null;
  readonly fuzz: string | null;
  readonly killTable: string | null;
  readonly commit: string;
  readonly replace: boolean;
  readonly dirty: boolean;
  readonly out: string;
}

/** Options each command accepts beyond the common ones. */
const kCommandOptions: Readonly<Record<Options['command'], readonly string[]>> = {
  add: ['bench', 'fuzz', 'kill-table', 'commit', 'dirty', 'replace'],
  report: ['out'],
  list: [],
};
const kCommonOptions = ['history', 'json', 'help'];

function parseCli(argv: readonly string[], io: CliIo): Options | 'help' {
  const parsed = parseCliArgs({
    args: [...argv],
    options: {
      bench: { type: 'string' },
      fuzz: { type: 'string' },
      'kill-table': { type: 'string' },
      commit: { type: 'string' },
      replace: { type: 'boolean', default: false },
      dirty: { type: 'boolean', default: false },
      out: { type: 'string' },
      history: { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    tokens: true,
  });
  const v = parsed.values;
  if (v.help) return 'help';
  const [command, ...extra] = parsed.positionals;
  if (command === undefined) throw new UsageError('give a command: add, report or list');
  if (command !== 'add' && command !== 'report' && command !== 'list') throw new UsageError(`${JSON.stringify(command)} is not a command; use add, report or list`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  for (const token of parsed.tokens ?? []) {
    if (token.kind === 'option' && !kCommonOptions.includes(token.name) && !kCommandOptions[command].includes(token.name)) throw new UsageError(`--${token.name} does not apply to ${command}`);
  }
  for (const name of ['bench', 'fuzz', 'kill-table', 'out', 'history', 'json', 'commit'] as const) {
    if (v[name] === '') throw new UsageError(`--${name} needs a value`);
  }
  if (command === 'add' && v.bench === undefined) throw new UsageError('add needs --bench FILE (the JSON of pnpm bench --json FILE)');
  const path = (p: string | undefined): string | null => (p === undefined ? null : resolve(io.baseDir, p));
  return {
    command,
    history: path(v.history) ?? kHistoryPathDefault,
    json: path(v.json),
    bench: path(v.bench),
    fuzz: path(v.fuzz),
    killTable: path(v['kill-table']),
    commit: v.commit ?? 'HEAD',
    replace: v.replace,
    dirty: v.dirty,
    out: path(v.out) ?? kReportPathDefault,
  };
}

function add(options: Options, io: CliIo, deps: HistoryCliDeps): number {
  const label = (flag: string, path: string): string => `--${flag} ${shown(io, path)}`;
  const bench = benchPart(readInput(options.bench as string, label('bench', options.bench as string)));
  const fuzz = options.fuzz === null ? null : fuzzPart(readInput(options.fuzz, label('fuzz', options.fuzz)));
  const killTable = options.killTable === null ? null : killTablePart(readInput(options.killTable, label('kill-table', options.killTable)));
  const commit = deps.gitCommit(options.commit, options.history);
  const record: HistoryRecord = { kvfuzz: kHistorySchema, commit: options.dirty ? { ...commit, dirty: true } : commit, recordedAt: deps.now().toISOString(), ...bench, fuzz, killTable };
  const outcome = addRecord(options.history, record, options.replace);
  writeJsonFile(options.json, record);
  const pass = record.ratios.filter((r) => r.verdict === 'pass').length;
  const fail = record.ratios.filter((r) => r.verdict === 'fail').length;
  io.out(
    `bench:history add: ${outcome.action} ${record.commit.sha.slice(0, 12)}${record.commit.dirty ? ' (dirty)' : ''} ${record.mode} — ${record.ratios.length} ratios (${pass} pass, ${fail} fail), ` +
      `${fuzz === null ? 'no fuzz throughput' : `${fuzz.targets.length} fuzz targets`}, ${killTable === null ? 'no kill table' : `${killTable.mutants.length} mutants`}; ` +
      `line ${outcome.line} of ${shown(io, options.history)} (${outcome.records} ${outcome.records === 1 ? 'record' : 'records'})\n`,
  );
  return 0;
}

function shown(io: CliIo, path: string): string {
  const rel = relative(io.baseDir, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

function report(options: Options, io: CliIo, deps: HistoryCliDeps): number {
  const records = readHistory(options.history).map((h) => h.record);
  const page = historyHtml({ records, source: shown(io, options.history), generatedAt: deps.now() });
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, page.html);
  writeJsonFile(options.json, page.data);
  const count = (group: string): number => page.data.charts.filter((c) => c.group === group).length;
  const commits = new Set(records.map((r) => r.commit.sha)).size;
  if (records.length === 0) io.err(`note: ${shown(io, options.history)} holds no record yet; the report has no charts (add one with pnpm bench:history add --bench FILE)\n`);
  io.out(
    `bench:history report: ${page.data.charts.length} charts (${count('ratio')} ratios, ${count('fuzz')} fuzz targets, ${count('detect')} mutants) over ${records.length} ${records.length === 1 ? 'record' : 'records'} of ${commits} ${commits === 1 ? 'commit' : 'commits'}; wrote ${shown(io, options.out)}\n`,
  );
  return 0;
}

function list(options: Options, io: CliIo): number {
  const records = chartOrder(readHistory(options.history).map((h) => h.record));
  writeJsonFile(options.json, records);
  const rows = records.map((r) => [
    `${r.commit.sha.slice(0, 12)}${r.commit.dirty ? '*' : ''}`,
    r.commit.date.slice(0, 10),
    r.mode,
    r.ratios.length,
    r.ratios.filter((x) => x.verdict === 'pass').length,
    r.ratios.filter((x) => x.verdict === 'fail').length,
    r.fuzz === null ? '—' : r.fuzz.targets.map((t) => `${t.target} ${t.commandsPerSecond.toFixed(0)}`).join(', '),
    r.killTable === null ? '—' : `${r.killTable.mutants.filter((m) => m.killed).length}/${r.killTable.mutants.length}`,
  ]);
  if (rows.length > 0) io.out(`${formatTable(['commit', 'date', 'mode', 'ratios', 'pass', 'fail', 'fuzz commands/s', 'killed'], rows)}\n\n`);
  const commits = new Set(records.map((r) => r.commit.sha)).size;
  io.out(`bench:history list: ${records.length} ${records.length === 1 ? 'record' : 'records'} of ${commits} ${commits === 1 ? 'commit' : 'commits'} in ${shown(io, options.history)}\n`);
  return 0;
}

/** Runs the CLI; returns the exit status. */
export function historyMain(argv: readonly string[], io: CliIo, deps: HistoryCliDeps = kRealDeps): number {
  try {
    const options = parseCli(argv, io);
    if (options === 'help') {
      io.out(`${kHelp}\n`);
      return 0;
    }
    if (options.command === 'add') return add(options, io, deps);
    if (options.command === 'report') return report(options, io, deps);
    return list(options, io);
  } catch (error) {
    if (error instanceof DuplicateRecordError) {
      io.err(`pnpm bench:history: ${error.message}\n`);
      return 1;
    }
    if (error instanceof UsageError) {
      io.err(`pnpm bench:history: ${error.message}\n(see pnpm bench:history --help)\n`);
      return 2;
    }
    if (error instanceof HistoryInputError || error instanceof HistoryFileError || error instanceof GitCommitError) {
      io.err(`pnpm bench:history: ${error.name}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
