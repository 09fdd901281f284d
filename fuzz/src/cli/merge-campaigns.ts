/**
 * `pnpm fuzz:merge FILE…`: merges the `--json` files of a sharded campaign (one per CI job) into
 * one summary: totals per target, every failure with its shard. Exit 1 when any shard failed,
 * 2 on bad input. `--json OUT` writes the merged document.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable } from './format-table.js';

interface CampaignFile {
  readonly kvfuzz: string;
  readonly seed: number;
  readonly shard: string;
  readonly targets: readonly { readonly target: string; readonly mutant: string | null; readonly runs: number; readonly commands: number; readonly elapsedMs: number; readonly failed: boolean; readonly failure: unknown }[];
}

function main(argv: readonly string[]): number {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: { json: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`pnpm fuzz:merge: ${(error as Error).message}\n`);
    return 2;
  }
  const baseDir = process.env['INIT_CWD'] ?? process.cwd();
  if (parsed.positionals.length === 0) {
    process.stderr.write('pnpm fuzz:merge: give the campaign JSON files of every shard\n');
    return 2;
  }
  const files: CampaignFile[] = [];
  for (const path of parsed.positionals) {
    try {
      const doc = JSON.parse(readFileSync(resolve(baseDir, path), 'utf8')) as CampaignFile;
      if (doc.kvfuzz !== 'fuzz-campaign/1') throw new Error(`not a campaign file (kvfuzz: ${String(doc.kvfuzz)})`);
      files.push(doc);
    } catch (error) {
      process.stderr.write(`pnpm fuzz:merge: ${path}: ${(error as Error).message}\n`);
      return 2;
    }
  }
  const totals = new Map<string, { runs: number; commands: number; ms: number; failures: number }>();
  const failures: { shard: string; target: string; failure: unknown }[] = [];
  for (const f of files) {
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
  const seeds = [...new Set(files.map((f) => f.seed))];
  const rows = [...totals].map(([key, t]) => [key, t.runs, t.commands, Math.round(t.commands / Math.max(t.ms / 1000, 1e-3)), t.failures]);
  if (parsed.values.json !== undefined) {
    const merged = { kvfuzz: 'fuzz-campaign-merged/1', seeds, shards: files.map((f) => f.shard), targets: Object.fromEntries(totals), failures };
    writeFileSync(resolve(baseDir, parsed.values.json), `${JSON.stringify(merged, null, 2)}\n`);
  }
  process.stdout.write(`${formatTable(['target', 'runs', 'commands', 'cmd/s per job', 'failed shards'], rows)}\n\n`);
  process.stdout.write(`${files.length} shards (seed ${seeds.join(', ')}): ${failures.length} failed\n`);
  return failures.length > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
