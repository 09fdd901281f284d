import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const kFuzzDir = fileURLToPath(new URL('..', import.meta.url));

function fuzz(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=source', 'src/cli/fuzz.ts', ...args], { cwd: kFuzzDir, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('fuzz:cli,fuzz', () => {
  it('runs a time-boxed campaign, prints the summary last and writes JSON', () => {
    const json = join(mkdtempSync(join(tmpdir(), 'kvfuzz-')), 'campaign.json');
    const r = fuzz('--time', '1', '--seed', '42', '--json', json);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^seed 42: \d+ runs, \d+ commands in [\d.]+s; 0 failures$/);
    expect(r.stdout).toMatch(/allocator\s+contract\s+\d+\s+\d+\s+\d+\s+0\s+ok/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { seed: number; targets: { target: string; runs: number; failed: boolean }[] };
    expect(report.seed).toBe(42);
    expect(report.targets[0]?.target).toBe('allocator');
    expect(report.targets[0]?.runs).toBeGreaterThan(0);
    expect(report.targets[0]?.failed).toBe(false);
  });

  it('exits 1 and prints the shrunk program when a planted bug is caught', () => {
    const r = fuzz('--time', '5', '--mutant', 'nested-begin-resets');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('program (');
    expect(r.stdout).toContain('groupBegin()');
    expect(r.stdout).toMatch(/1 failure$/m);
  });

  it.each([
    [['--time', 'soon'], /--time soon is not a number of seconds/],
    [['--target', 'nope'], /--target nope is not a target/],
    [['--target', 'host-pool'], /not built yet/],
    [['--mutant', 'nope'], /--mutant nope is not a mutant/],
    [['--bogus'], /Unknown option '--bogus'/],
  ])('exits 2 on bad usage %j', (args, message) => {
    const r = fuzz(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('lists targets and mutants', () => {
    const r = fuzz('--list');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('free-without-unique');
  });
});
