import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const kTemplatesDir = fileURLToPath(new URL('../../ci/templates/', import.meta.url));

/** Every `pnpm fuzz …` line of the templates, with CI expressions filled in and a 1 s budget. */
function fuzzCommands(): { file: string; args: string[] }[] {
  return readdirSync(kTemplatesDir)
    .filter((f) => f.endsWith('.yml'))
    .flatMap((file) =>
      readFileSync(kTemplatesDir + file, 'utf8')
        .split('\n')
        .map((line) => /run: pnpm fuzz (.*)$/.exec(line.trim())?.[1])
        .filter((rest): rest is string => rest !== undefined)
        .map((rest) => ({
          file,
          args: rest
            .replace(/\$\{\{ github\.run_id \}\}/g, '12345')
            .replace(/\$\{\{ matrix\.shard \}\}/g, '1')
            .replace(/--time \d+/, '--time 1')
            .replace(/--kill-table/, '--kill-table --target allocator --time-per-mutant 10')
            .split(/\s+/)
            .map((a) => (a.endsWith('.json') || a.endsWith('.xml') ? `/tmp/kvfuzz-template-${process.pid}-${a}` : a)),
        })),
    );
}

describe('fuzz:ci-templates', () => {
  const commands = fuzzCommands();

  it('finds the campaign, kill-table and merge commands', () => {
    expect(commands.length).toBeGreaterThanOrEqual(3);
  });

  it.each(commands.map((c) => [c.file, c.args.join(' '), c.args] as const))('%s: pnpm fuzz %s is accepted and runs clean', (_file, _line, args) => {
    const r = runCli('fuzz.ts', args);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
