import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const kTemplatesDir = fileURLToPath(new URL('../../ci/templates/', import.meta.url));
/** Where the template commands' output files go (CI writes them to its workspace). */
const kOutDir = mkdtempSync(join(tmpdir(), 'kvfuzz-template-'));

/** Every `pnpm fuzz …` line of the templates, with CI expressions filled in and a 1 s budget. */
function fuzzCommands(): { file: string; line: string; args: string[] }[] {
  return readdirSync(kTemplatesDir)
    .filter((f) => f.endsWith('.yml'))
    .flatMap((file) =>
      readFileSync(kTemplatesDir + file, 'utf8')
        .split('\n')
        .map((line) => /run: pnpm fuzz (.*)$/.exec(line.trim())?.[1])
        .filter((rest): rest is string => rest !== undefined)
        .map((rest) => {
          const line = rest
            .replace(/\$\{\{ github\.run_id \}\}/g, '12345')
            .replace(/\$\{\{ matrix\.shard \}\}/g, '1')
            .replace(/--time \d+/, '--time 1')
            .replace(/--kill-table/, '--kill-table --target allocator --time-per-mutant 10');
          return { file, line, args: line.split(/\s+/).map((a) => (a.endsWith('.json') || a.endsWith('.xml') ? join(kOutDir, a) : a)) };
        }),
    );
}

/** The nightly template's merge line, its shard files in a temporary folder. */
function mergeCommand(dir: string): string[] {
  const line = readFileSync(`${kTemplatesDir}kvfuzz-nightly.yml`, 'utf8')
    .split('\n')
    .map((l) => /run: pnpm fuzz:merge (.*)$/.exec(l.trim())?.[1])
    .find((rest) => rest !== undefined);
  if (line === undefined) throw new Error('kvfuzz-nightly.yml has no pnpm fuzz:merge line');
  return line.split(/\s+/).map((a) => (a.endsWith('.json') ? join(dir, a) : a));
}

describe('fuzz:ci-templates', () => {
  const commands = fuzzCommands();

  it('finds the campaign, kill-table and merge commands', () => {
    expect(commands.length).toBeGreaterThanOrEqual(3);
  });

  it('merges the nightly shards with its fuzz:merge line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-nightly-'));
    const shardLine = commands.find((c) => c.file === 'kvfuzz-nightly.yml' && c.args.includes('--shard'));
    expect(shardLine).toBeDefined();
    for (let i = 0; i < 4; i++) {
      const args = (shardLine?.args ?? []).map((a) => (a === '1/4' ? `${i}/4` : a.endsWith('.json') ? join(dir, `shard-${i}.json`) : a.endsWith('.xml') ? join(dir, `shard-${i}.xml`) : a));
      const shard = runCli('fuzz.ts', [...args, '--target', 'allocator', '--workers', '1', '--time', '0.3']);
      expect(shard.status, shard.stdout + shard.stderr).toBe(0);
    }
    const merged = runCli('merge-campaigns.ts', mergeCommand(dir));
    expect(merged.status, merged.stdout + merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^seed 12345, 4 of 4 shards: 0 failed$/m);
  });

  it.each(commands.map((c) => [c.file, c.line, c.args] as const))('%s: pnpm fuzz %s is accepted and runs clean', (_file, _line, args) => {
    const r = runCli('fuzz.ts', args);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
