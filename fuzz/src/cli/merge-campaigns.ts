/**
 * `pnpm fuzz:merge FILE…`: merges the `--json` files of a sharded campaign (one per CI job) into
 * one summary: totals per target, every failure with its shard. The files must be one campaign:
 * the same seed, the same shard count, each shard exactly once. Exit 0 when no shard failed, 1 when
 * one did, 2 on bad usage or a file that is not such a shard (nothing is written then).
 */
import { closeSync, fstatSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { BadInput } from '../bad-input.js';
import { inertLine } from '../text/inert-text.js';
import { formatTable } from './format-table.js';
import { checkOutputPath, writeOutputFile } from './output-file.js';
import { perSecond } from './per-second.js';
import { runMain } from './run-main.js';
import { kSeedMax } from './seed.js';
import { UsageError } from './usage-error.js';

/** Largest campaign file read: a shard's statistics and one shrunk failure per target fit many times over. */
const kCampaignFileBytesMax = 16 * 1024 * 1024;
/** More shards than this is not a CI matrix; the bound keeps the missing-shard check small. */
const kShardCountMax = 10_000;

const kHelp = `Usage: pnpm fuzz:merge SHARD.json… [--json OUT]

Merges the --json files of one sharded campaign (pnpm fuzz --seed S --shard I/N --json FILE, one
per CI job) into one summary: runs, commands and failures per target, every failure with its
shard. The files must be one campaign: the same seed, the same N, every shard 0 … N−1 exactly once.

Options:
  --json OUT     write the merged summary (kvfuzz: fuzz-campaign-merged/1)
  --debug        show where an unexpected error came from
  -h, --help     this text

Exit status: 0 no shard failed, 1 a shard found a failure, 2 bad usage or a file that is not a
shard of the campaign (nothing is written).`;

const count = z.number().int().nonnegative();
const kCampaignFile = z.object({
  kvfuzz: z.literal('fuzz-campaign/1'),
  seed: z.number().int().min(0).max(kSeedMax),
  shard: z.string().regex(/^\d{1,6}\/\d{1,6}$/, 'is not I/N'),
  targets: z
    .array(
      z.object({
        target: z.string().min(1).max(100),
        mutant: z.string().max(100).nullable(),
        runs: count,
        commands: count,
        elapsedMs: z.number().nonnegative(),
        failed: z.boolean(),
        failure: z.unknown(),
      }),
    )
    .max(1000),
});
type CampaignFile = z.infer<typeof kCampaignFile>;

/** One shard's file, read within its size bound and checked against the campaign schema. */
function readCampaignFile(path: string, baseDir: string): CampaignFile & { readonly index: number; readonly count: number; readonly path: string } {
  const file = resolve(baseDir, path);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new BadInput(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new BadInput(`${path} is not a file`);
    if (stat.size > kCampaignFileBytesMax) throw new BadInput(`${path} is ${stat.size} bytes, more than a campaign file's ${kCampaignFileBytesMax}`);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BadInput(`${path} is not JSON`);
  }
  const parsed = kCampaignFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    throw new BadInput(`${path} is not a campaign file of pnpm fuzz --json (${inertLine(`${where}${issue?.message ?? 'invalid'}`, 160)})`);
  }
  const [index, shardCount] = parsed.data.shard.split('/').map(Number) as [number, number];
  if (shardCount < 1 || shardCount > kShardCountMax || index >= shardCount) throw new BadInput(`${path}: shard ${parsed.data.shard} is not I/N with 0 ≤ I < N ≤ ${kShardCountMax}`);
  return { ...parsed.data, index, count: shardCount, path };
}

/** Refuses files that are not exactly the shards of one campaign, naming what is wrong. */
function checkOneCampaign(files: readonly ReturnType<typeof readCampaignFile>[], baseDir: string): void {
  const first = files[0] as (typeof files)[number];
  const realPaths = new Map<string, string>();
  const byIndex = new Map<number, string>();
  for (const f of files) {
    const real = realpathSync(resolve(baseDir, f.path));
    const twice = realPaths.get(real);
    if (twice !== undefined) throw new BadInput(`${f.path} is the same file as ${twice}: each shard counts once`);
    realPaths.set(real, f.path);
    if (f.seed !== first.seed) throw new BadInput(`${f.path} ran seed ${f.seed} but ${first.path} ran seed ${first.seed}: the files are not one campaign`);
    if (f.count !== first.count) throw new BadInput(`${f.path} is shard ${f.shard} but ${first.path} is shard ${first.shard}: the files split the campaign differently`);
    const same = byIndex.get(f.index);
    if (same !== undefined) throw new BadInput(`shard ${f.shard} is given twice: ${same} and ${f.path}`);
    byIndex.set(f.index, f.path);
  }
  const missing = Array.from({ length: first.count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    const shown = missing.slice(0, 10).map((i) => `${i}/${first.count}`).join(', ');
    throw new BadInput(`shard${missing.length === 1 ? '' : 's'} ${shown}${missing.length > 10 ? `, … (${missing.length} in all)` : ''} of seed ${first.seed} ${missing.length === 1 ? 'is' : 'are'} missing`);
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: { json: { type: 'string' }, debug: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.values.help) {
    process.stdout.write(`${kHelp}\n`);
    return 0;
  }
  const baseDir = process.env['INIT_CWD'] ?? process.cwd();
  if (parsed.positionals.length === 0) throw new UsageError('give the campaign JSON file of every shard');
  const out = parsed.values.json === undefined ? null : checkOutputPath('--json', parsed.values.json, baseDir);
  const files = parsed.positionals.map((path) => readCampaignFile(path, baseDir));
  checkOneCampaign(files, baseDir);
  const totals = new Map<string, { runs: number; commands: number; ms: number; failures: number }>();
  const failures: { shard: string; target: string; failure: unknown }[] = [];
  for (const f of [...files].sort((a, b) => a.index - b.index)) {
    for (const t of f.targets) {
      const key = t.mutant === null ? t.target : `${t.target} × ${t.mutant}`;
      const total = totals.get(key) ?? { runs: 0, commands: 0, ms: 0, failures: 0 };
      total.runs += t.runs;
      total.commands += t.commands;
      total.ms += t.elapsedMs;
      if (t.failed) {
        total.failures++;
        failures.push({ shard: f.shard, target: key, failure: t.failure });
      }
      totals.set(key, total);
    }
  }
  const seed = (files[0] as (typeof files)[number]).seed;
  const rows = [...totals].map(([key, t]) => [inertLine(key, 80), t.runs, t.commands, perSecond(t.commands, t.ms), t.failures]);
  if (out !== null) {
    const merged = { kvfuzz: 'fuzz-campaign-merged/1', seed, shards: files.map((f) => f.shard), targets: Object.fromEntries(totals), failures };
    writeOutputFile(out, `${JSON.stringify(merged, null, 2)}\n`);
  }
  process.stdout.write(`${formatTable(['target', 'runs', 'commands', 'cmd/s per job', 'failed shards'], rows)}\n\n`);
  process.stdout.write(`seed ${seed}, ${files.length} of ${files.length} shards: ${failures.length} failed\n`);
  return failures.length > 0 ? 1 : 0;
}

await runMain('pnpm fuzz:merge', main);
