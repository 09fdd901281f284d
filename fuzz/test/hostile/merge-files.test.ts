import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const merge = (...args: string[]) => runCli('merge-campaigns.ts', args);

/** A shard's `--json` file as `pnpm fuzz` writes it. */
function shardFile(dir: string, name: string, seed: number, shard: string, failed = false, extra: Record<string, unknown> = {}): string {
  const file = join(dir, name);
  const target = { target: 'allocator', mutant: null, mode: 'contract', runs: 100, commands: 2000, batches: 1, elapsedMs: 1000, commandsPerSecond: 2000, failed, detectMs: null, failure: failed ? { rule: 'leak', message: 'x' } : null };
  writeFileSync(file, JSON.stringify({ kvfuzz: 'fuzz-campaign/1', seed, shard, workers: 1, timeSeconds: 1, targets: [target], ...extra }));
  return file;
}

/** Exit 2, one line naming the problem, nothing on stdout, no stack. */
function expectRefused(r: ReturnType<typeof merge>, message: RegExp): void {
  expect(r.status, r.stdout + r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('fuzz:hostile,merge', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-merge-'));
  const a = shardFile(dir, 'shard-0.json', 5, '0/2');
  const b = shardFile(dir, 'shard-1.json', 5, '1/2');

  it('merges the shards of one campaign', () => {
    const out = join(dir, 'merged.json');
    const r = merge(a, b, '--json', out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('seed 5, 2 of 2 shards: 0 failed');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ kvfuzz: 'fuzz-campaign-merged/1', seed: 5, shards: ['0/2', '1/2'], targets: { allocator: { runs: 200, commands: 4000 } } });
  });

  it('exits 1 when a shard failed', () => {
    const failing = shardFile(dir, 'failing-1.json', 5, '1/2', true);
    const r = merge(a, failing);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/seed 5, 2 of 2 shards: 1 failed$/m);
  });

  it('prints its help', () => {
    const r = merge('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: pnpm fuzz:merge SHARD\.json/);
  });

  it.each([
    ['different seeds', () => [a, shardFile(dir, 'other-seed.json', 6, '1/2')], /other-seed\.json ran seed 6 but .*shard-0\.json ran seed 5: the files are not one campaign/],
    ['the same file twice', () => [a, a, b], /shard-0\.json is the same file as .*shard-0\.json: each shard counts once/],
    ['one shard in two files', () => [a, shardFile(dir, 'copy-0.json', 5, '0/2'), b], /shard 0\/2 is given twice: .*shard-0\.json and .*copy-0\.json/],
    ['a missing shard', () => [a], /shard 1\/2 of seed 5 is missing/],
    ['another split', () => [a, shardFile(dir, 'quarter.json', 5, '1/4')], /quarter\.json is shard 1\/4 but .*shard-0\.json is shard 0\/2/],
    ['targets not an array', () => [shardFile(dir, 'bad-targets.json', 5, '0/1', false, { targets: 'allocator' })], /bad-targets\.json is not a campaign file of pnpm fuzz --json \(targets: /],
    ['another kind of file', () => [shardFile(dir, 'kill.json', 5, '0/1', false, { kvfuzz: 'kill-table/1' })], /kill\.json is not a campaign file .*kvfuzz/],
    ['a shard index past its count', () => [shardFile(dir, 'past.json', 5, '3/2')], /past\.json: shard 3\/2 is not I\/N/],
    ['not JSON', () => { const f = join(dir, 'text.json'); writeFileSync(f, 'not json'); return [f]; }, /text\.json is not JSON/],
    ['a missing file', () => [join(dir, 'nope.json')], /nope\.json: cannot be read \(ENOENT\)/],
    ['a folder', () => { const d = join(dir, 'folder.json'); mkdirSync(d, { recursive: true }); return [d]; }, /folder\.json is not a file/],
    ['a file over the size bound', () => { const f = join(dir, 'huge.json'); writeFileSync(f, `"${'x'.repeat(17 * 1024 * 1024)}"`); return [f]; }, /huge\.json is \d+ bytes, more than a campaign file's 16777216/],
    ['an injected target name', () => [shardFile(dir, 'inject.json', 5, '0/1', false, { targets: [{ target: '\u001b]0;owned\u0007\n::error::x', mutant: null, runs: 1, commands: 1, elapsedMs: 1, failed: false, failure: null }] })], null],
    ['no files', () => [], /give the campaign JSON file of every shard/],
    ['an unwritable output', () => [a, b, '--json', join(dir, 'no-such-dir', 'm.json')], /--json .*: the folder .*no-such-dir does not exist/],
  ] as const)('refuses %s', (_name, files, message) => {
    const r = merge(...files());
    if (message === null) {
      // Not refused (the file is a valid shard), but its text must come out inert.
      expect(r.status).toBe(0);
      expect(r.stdout).not.toContain('\u001b');
      expect(r.stdout).not.toMatch(/^\s*::/m);
      expect(r.stdout).toContain('\\e]0;owned\\x07\\n::error::x');
      return;
    }
    expectRefused(r, message);
  });
});
