/**
 * `pnpm fuzz`: time-boxed fuzz campaigns over every model, on worker threads, with a live
 * progress line, a summary table, a regression store, and the kill table of planted bugs.
 * Exit 0 when nothing failed (every mutant killed, a replay passing), 1 on a failure, 2 on bad usage.
 * Run `pnpm fuzz --help`.
 */
import { availableParallelism } from 'node:os';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatShard, type Shard } from '../campaign/batch-seed.js';
import { runKillTable, runTargetCampaign, type KillRow, type TargetCampaign } from '../campaign/campaign.js';
import { WorkerPool } from '../campaign/worker-pool.js';
import { kAllocatorRules } from '../contract/allocator-rules.js';
import { kHostRules } from '../contract/host-rules.js';
import { findTarget, kFuzzTargets, kPlannedTargets, kRenamedTargets, targetOfMutant, type FuzzTarget } from '../fuzz-targets.js';
import { failureSignature } from '../regressions/failure-signature.js';
import { isStored, storeRegression } from '../regressions/regression-store.js';
import { inertText } from '../text/inert-text.js';
import { formatTable } from './format-table.js';
import { junitReport } from './junit-report.js';
import { checkOutputPath, writeOutputFile } from './output-file.js';
import { perSecond } from './per-second.js';
import { ProgressLine } from './progress-line.js';
import { replayFile } from './replay-file.js';
import { runMain } from './run-main.js';
import { fastCheckSeed, kSeedMax, parseSeed, randomSeed } from './seed.js';
import { UsageError } from './usage-error.js';

const kTargetNames = kFuzzTargets.map((t) => t.name);
/** Default campaign length: the README's main command runs about a minute. */
const kTimeSecondsDefault = 60;
/** Longest campaign accepted (a day): a bound on the loop, and catches minutes typed as seconds. */
const kTimeSecondsMax = 86_400;
/** Kill table: each planted bug gets this long to be caught (the issue's bound). */
const kKillSecondsDefault = 10;
/** More threads than this only add contention on the machines kvfuzz targets. */
const kWorkersMax = 64;
/**
 * CI variables a shard takes its campaign seed from when `--seed` is not given: each is the same
 * for every job of one workflow run (GitHub Actions, GitLab CI), so the shards share one campaign.
 */
const kSeedVariables = ['KVFUZZ_SEED', 'GITHUB_RUN_ID', 'CI_PIPELINE_ID'] as const;

const kHelp = `Usage: pnpm fuzz [options]
       pnpm fuzz --kill-table [--time-per-mutant S] [--json FILE]
       pnpm fuzz --replay FILE

Runs time-boxed fuzz campaigns: random geometries and command sequences against each model, the
page ledger as the oracle, a drain at the end of every run. A failure of the reference is stored
in fuzz/regressions/<target>/ as data, which the test suite replays.

Options:
  --target NAME         ${kTargetNames.join(' | ')} | all (default all); gpu-kernels
                        runs on the WebGPU adapter (lavapipe will do), one device per worker
  --time SECONDS        time budget for the whole campaign, shared by the targets; each runs at
                        least once (default ${kTimeSecondsDefault})
  --seed N              campaign seed, an integer in [0, ${kSeedMax}] (default: random;
                        printed either way)
  --shard I/N           run batches I, I+N, I+2N, … so N jobs cover disjoint work (default 0/1);
                        needs --seed, or one of ${kSeedVariables.join(', ')} set (the first set
                        one is the seed), so every shard runs the same campaign
  --workers N           worker threads (default: the machine's cores)
  --mutant NAME         run a planted bug's model against it (see --list); nothing is stored
  --json FILE           write campaign statistics as JSON
  --junit FILE          write JUnit XML
  --no-store            do not write failures to the regression store
  --fail-on WHICH       any (default): exit 1 on any failure; new: only on a failure whose
                        signature is not in the regression store yet (pull-request mode)
  --kill-table          run every planted bug of every model; exit 1 if one survives
  --time-per-mutant S   kill-table budget per planted bug (default ${kKillSecondsDefault})
  --replay FILE         replay one stored regression and show its program
  --list                list targets and mutants, then exit
  --debug               show where an unexpected error came from
  -h, --help            this text

Exit status: 0 nothing failed, 1 a failure was found (or a mutant survived, or a replay still
fails), 2 bad usage, a bad file, or an error that kept the run from finishing.`;

interface CliOptions {
  readonly action: 'campaign' | 'kill-table' | 'replay';
  readonly targets: readonly FuzzTarget[];
  readonly timeSeconds: number;
  readonly timePerMutantSeconds: number;
  readonly seed: number;
  /** Where the seed came from, when not `--seed` (printed with it). */
  readonly seedSource: string | null;
  readonly shard: Shard;
  readonly workers: number;
  readonly mutant: string | null;
  /** Output files, resolved and checked writable before the run. */
  readonly json: string | null;
  readonly junit: string | null;
  readonly store: boolean;
  readonly failOn: 'any' | 'new';
  readonly replay: string | null;
}

function seconds(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0 || value > kTimeSecondsMax) throw new UsageError(`${name} ${JSON.stringify(raw)} is not a number of seconds in (0, ${kTimeSecondsMax}]`);
  return value;
}

function parseShard(raw: string | undefined): Shard {
  if (raw === undefined) return { index: 0, count: 1 };
  const m = /^(\d{1,6})\/(\d{1,6})$/.exec(raw);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (m === null || count < 1 || index >= count) throw new UsageError(`--shard ${JSON.stringify(raw)} is not I/N with 0 ≤ I < N ≤ 999999`);
  return { index, count };
}

/**
 * The campaign seed: `--seed`, else (for a shard, whose siblings must share it) the first CI
 * variable of `kSeedVariables` that is set, else a random one. Printed either way.
 */
function campaignSeed(raw: string | undefined, sharded: boolean): { seed: number; source: string | null } {
  if (raw !== undefined) return { seed: parseSeed(raw), source: null };
  if (!sharded) return { seed: randomSeed(), source: null };
  for (const name of kSeedVariables) {
    const value = process.env[name];
    if (value !== undefined && value !== '') return { seed: parseSeed(value, name), source: name };
  }
  throw new UsageError(`--shard needs --seed: every shard of a campaign must run the same seed (or set one of ${kSeedVariables.join(', ')})`);
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
        shard: { type: 'string' },
        workers: { type: 'string' },
        mutant: { type: 'string' },
        json: { type: 'string' },
        junit: { type: 'string' },
        'no-store': { type: 'boolean', default: false },
        'fail-on': { type: 'string', default: 'any' },
        'kill-table': { type: 'boolean', default: false },
        'time-per-mutant': { type: 'string' },
        replay: { type: 'string' },
        list: { type: 'boolean', default: false },
        debug: { type: 'boolean', default: false },
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
  const named = findTarget(target);
  let targets: readonly FuzzTarget[];
  if (target === 'all') targets = kFuzzTargets;
  else if (named !== undefined) targets = [named];
  else if (Object.hasOwn(kRenamedTargets, target)) throw new UsageError(`--target ${target} is now --target ${kRenamedTargets[target]}`);
  else if (kPlannedTargets.includes(target)) throw new UsageError(`--target ${target}: that model is not built yet; available: ${kTargetNames.join(', ')}, all`);
  else throw new UsageError(`--target ${JSON.stringify(target)} is not a target; choose one of ${kTargetNames.join(', ')}, all`);
  if (v.mutant !== undefined) {
    const owner = targetOfMutant(v.mutant);
    if (owner === undefined) throw new UsageError(`--mutant ${JSON.stringify(v.mutant)} is not a mutant; --list shows them`);
    if (target !== 'all' && owner !== named) throw new UsageError(`--mutant ${v.mutant} belongs to --target ${owner.name}, not ${target}`);
    targets = [owner];
  }
  const shard = parseShard(v.shard);
  const { seed, source } = campaignSeed(v.seed, v.shard !== undefined);
  const workers = v.workers === undefined ? Math.min(availableParallelism(), kWorkersMax) : /^\d{1,3}$/.test(v.workers) ? Number(v.workers) : Number.NaN;
  if (!Number.isInteger(workers) || workers < 1 || workers > kWorkersMax) throw new UsageError(`--workers ${JSON.stringify(v.workers)} is not an integer in [1, ${kWorkersMax}]`);
  const action = v.replay !== undefined ? 'replay' : v['kill-table'] ? 'kill-table' : 'campaign';
  const failOn = v['fail-on'];
  if (failOn !== 'any' && failOn !== 'new') throw new UsageError(`--fail-on ${JSON.stringify(failOn)} is not any or new`);
  if (action === 'kill-table' && v.mutant !== undefined) throw new UsageError('--kill-table runs every mutant; drop --mutant');
  if (action === 'replay' && v.replay === '') throw new UsageError('--replay needs a regression file');
  return {
    action,
    targets,
    timeSeconds: seconds('--time', v.time, kTimeSecondsDefault),
    timePerMutantSeconds: seconds('--time-per-mutant', v['time-per-mutant'], kKillSecondsDefault),
    seed,
    seedSource: source,
    shard,
    workers,
    mutant: v.mutant ?? null,
    json: v.json === undefined ? null : checkOutputPath('--json', v.json, baseDir),
    junit: v.junit === undefined ? null : checkOutputPath('--junit', v.junit, baseDir),
    store: !v['no-store'] && v.mutant === undefined,
    failOn,
    replay: v.replay ?? null,
  };
}

function listAll(): string {
  const rows = kFuzzTargets.flatMap((t) => t.mutants.map((m) => [m.name, t.name, m.mode, m.mechanism]));
  const planned = kPlannedTargets.length === 0 ? '' : ` (planned: ${kPlannedTargets.join(', ')})`;
  const rules = `${kAllocatorRules[0].id}–${kAllocatorRules.at(-1)?.id}, host pool ${kHostRules[0].id}–${kHostRules.at(-1)?.id}`;
  return [
    `targets: ${kTargetNames.join(', ')}${planned}`,
    '',
    formatTable(['mutant', 'model', 'mode', 'mechanism'], rows),
    '',
    `Planted bugs every campaign must catch (pnpm fuzz --kill-table). The contract alternatives are judged by is CONTRACT.md (allocator ${rules}); pnpm validate --report gives a verdict per rule.`,
  ].join('\n');
}

const baseDir = process.env['INIT_CWD'] ?? process.cwd();

async function campaign(options: CliOptions): Promise<number> {
  const pool = new WorkerPool(options.workers);
  const progress = new ProgressLine();
  const sliceMs = (options.timeSeconds * 1000) / options.targets.length;
  const campaigns: TargetCampaign[] = [];
  try {
    for (const target of options.targets) {
      const label = options.mutant === null ? target.name : `${target.name} × ${options.mutant}`;
      campaigns.push(
        await runTargetCampaign(pool, { target: target.name, mutant: options.mutant, seed: fastCheckSeed(options.seed), shard: options.shard, timeMs: sliceMs }, (p) =>
          progress.update(
            () => `[${label}] ${(p.elapsedMs / 1000).toFixed(1)}s/${(sliceMs / 1000).toFixed(0)}s  runs ${p.runs}  commands ${p.commands}  ${perSecond(p.commands, p.elapsedMs)} cmd/s  failures ${p.failures}`,
          ),
        ),
      );
      progress.done();
    }
  } finally {
    await pool.close();
  }
  const stored: string[] = [];
  let newFailures = 0;
  for (const c of campaigns) {
    const f = c.failure?.report.failure;
    if (c.failure === null || f === undefined || f === null) continue;
    process.stdout.write(`${inertText(c.failure.text)}\n  (batch ${c.failure.batch} of seed ${options.seed}, batch seed ${c.failure.batchSeed})\n\n`);
    const known = options.mutant === null && isStored(c.target, f.rule, f.message);
    if (!known) newFailures++;
    if (options.store) {
      const s = storeRegression(c.target, c.failure.report, { seed: options.seed, batch: c.failure.batch, shard: formatShard(options.shard) });
      stored.push(`${relative(baseDir, s.file)}${s.created ? '' : ' (already stored)'}`);
    }
  }
  const signatureOf = (c: TargetCampaign): string | null => {
    const f = c.failure?.report.failure;
    return f === undefined || f === null ? null : failureSignature(c.target, f.rule, f.message);
  };
  if (options.json !== null) {
    const json = {
      kvfuzz: 'fuzz-campaign/1',
      seed: options.seed,
      shard: formatShard(options.shard),
      workers: options.workers,
      timeSeconds: options.timeSeconds,
      targets: campaigns.map((c) => ({
        target: c.target,
        mutant: c.mutant,
        mode: c.mode,
        runs: c.runs,
        commands: c.commands,
        batches: c.batches,
        elapsedMs: c.elapsedMs,
        commandsPerSecond: perSecond(c.commands, c.elapsedMs),
        failed: c.failure !== null,
        detectMs: c.failure?.detectMs ?? null,
        failure: c.failure === null ? null : { ...c.failure.report.failure, batch: c.failure.batch, batchSeed: c.failure.batchSeed, signature: signatureOf(c) },
      })),
    };
    writeOutputFile(options.json, `${JSON.stringify(json, null, 2)}\n`);
  }
  if (options.junit !== null) writeOutputFile(options.junit, junitReport(campaigns, options.seed, formatShard(options.shard)));
  const rows = campaigns.map((c) => [
    c.mutant === null ? c.target : `${c.target} × ${c.mutant}`,
    c.mode,
    c.runs,
    c.commands,
    perSecond(c.commands, c.elapsedMs),
    c.failure === null ? 0 : 1,
    c.failure === null ? 'ok' : `FAILED (${c.failure.report.failure?.rule}) after ${(c.failure.detectMs / 1000).toFixed(2)}s`,
  ]);
  const runs = campaigns.reduce((n, c) => n + c.runs, 0);
  const commands = campaigns.reduce((n, c) => n + c.commands, 0);
  const failures = campaigns.filter((c) => c.failure !== null).length;
  const elapsed = campaigns.reduce((n, c) => n + c.elapsedMs, 0) / 1000;
  if (stored.length > 0) process.stdout.write(`stored: ${stored.join(', ')}\n\n`);
  process.stdout.write(`${formatTable(['target', 'mode', 'runs', 'commands', 'cmd/s', 'failures', 'result'], rows)}\n\n`);
  process.stdout.write(
    `seed ${options.seed}${options.seedSource === null ? '' : ` (from ${options.seedSource})`}, shard ${formatShard(options.shard)}, ${options.workers} ${options.workers === 1 ? 'worker' : 'workers'}: ${runs} runs, ${commands} commands in ${elapsed.toFixed(1)}s; ${failures} ${failures === 1 ? 'failure' : 'failures'}\n`,
  );
  if (options.failOn === 'new' && failures > newFailures) process.stdout.write(`${failures - newFailures} of the failures were already in the regression store (--fail-on new)\n`);
  return (options.failOn === 'new' ? newFailures : failures) > 0 ? 1 : 0;
}

async function killTable(options: CliOptions): Promise<number> {
  const pool = new WorkerPool(options.workers);
  const progress = new ProgressLine();
  const total = options.targets.reduce((n, t) => n + t.mutants.length, 0);
  let done = 0;
  let rows: KillRow[];
  try {
    rows = await runKillTable(pool, fastCheckSeed(options.seed), options.timePerMutantSeconds * 1000, options.targets.map((t) => t.name), (row) => {
      done++;
      progress.update(() => `[kill-table] ${done}/${total}  last: ${row.mutant} ${row.killed ? 'killed' : 'SURVIVED'}`);
    });
  } finally {
    await pool.close();
  }
  progress.done();
  const survivors = rows.filter((r) => !r.killed);
  if (options.json !== null) {
    writeOutputFile(options.json, `${JSON.stringify({ kvfuzz: 'kill-table/1', seed: options.seed, timePerMutantSeconds: options.timePerMutantSeconds, rows }, null, 2)}\n`);
  }
  const table = rows.map((r) => [r.mutant, r.target, r.mode, r.killed ? 'yes' : 'NO', r.detectMs ?? '—', r.shrunkLength ?? '—', r.rule ?? '—']);
  process.stdout.write(`${formatTable(['mutant', 'model', 'mode', 'killed', 'ms to detect', 'shrunk length', 'caught by'], table)}\n\n`);
  process.stdout.write(`seed ${options.seed}: ${rows.length - survivors.length} of ${rows.length} planted bugs killed within ${options.timePerMutantSeconds}s each${survivors.length > 0 ? `; SURVIVED: ${survivors.map((r) => r.mutant).join(', ')}` : ''}\n`);
  return survivors.length > 0 ? 1 : 0;
}

async function replay(options: CliOptions): Promise<number> {
  return replayFile(resolve(baseDir, options.replay as string), (text) => process.stdout.write(text));
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseCli(argv);
  if (options === 'help') {
    process.stdout.write(`${kHelp}\n`);
    return 0;
  }
  if (options === 'list') {
    process.stdout.write(`${listAll()}\n`);
    return 0;
  }
  try {
    if (options.action === 'replay') return await replay(options);
    if (options.action === 'kill-table') return await killTable(options);
    return await campaign(options);
  } catch (error) {
    // The gpu-kernels target on a machine without a WebGPU adapter: a failure naming the fix, never a skip.
    const noAdapter = error instanceof Error ? /No WebGPU adapter: .*$/m.exec(error.message) : null;
    if (noAdapter === null) throw error;
    process.stderr.write(`pnpm fuzz: the gpu-kernels target needs a WebGPU adapter. ${noAdapter[0]}\n`);
    return 1;
  }
}

await runMain('pnpm fuzz', main);
