import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alloc, freeRow } from '../src/models/allocator/program.js';
import { storeRegression } from '../src/regressions/regression-store.js';
import { failureReport } from './support/failure-report.js';
import { runCli } from './support/run-cli.js';

const fuzz = (...args: string[]) => runCli('fuzz.ts', args);
const tmp = (name: string): string => join(mkdtempSync(join(tmpdir(), 'kvfuzz-')), name);

describe('fuzz:cli,fuzz', () => {
  it('runs a time-boxed campaign on two workers, prints the summary last, writes JSON and JUnit', () => {
    const json = tmp('campaign.json');
    const junit = tmp('campaign.xml');
    const r = fuzz('--time', '3', '--seed', '42', '--workers', '2', '--json', json, '--junit', junit);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^seed 42, shard 0\/1, 2 workers: \d+ runs, \d+ commands in [\d.]+s; 0 failures$/);
    expect(r.stdout).toMatch(/allocator\s+contract\s+\d+\s+\d+\s+\d+\s+0\s+ok/);
    expect(r.stdout).toMatch(/prefix-cache\s+contract\s+\d+\s+\d+\s+\d+\s+0\s+ok/);
    expect(r.stdout).toMatch(/hicache\s+contract\s+\d+\s+\d+\s+\d+\s+0\s+ok/);
    expect(r.stdout).toMatch(/gpu-kernels\s+exact\s+\d+\s+\d+\s+\d+\s+0\s+ok/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { seed: number; workers: number; targets: { target: string; runs: number; commandsPerSecond: number; failed: boolean }[] };
    expect(report.seed).toBe(42);
    expect(report.workers).toBe(2);
    expect(report.targets.map((t) => t.target)).toEqual(['allocator', 'prefix-cache', 'hicache', 'gpu-kernels']);
    for (const t of report.targets) {
      expect(t.runs).toBeGreaterThan(0);
      expect(t.commandsPerSecond).toBeGreaterThan(0);
      expect(t.failed).toBe(false);
    }
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0"/);
    expect(xml).toContain('<testsuites name="kvfuzz" tests="4" failures="0">');
    expect(xml).toContain('<property name="seed" value="42"/>');
  });

  it('takes a shard and reports it', () => {
    const r = fuzz('--target', 'allocator', '--time', '1', '--seed', '7', '--shard', '1/3', '--workers', '1');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/seed 7, shard 1\/3, 1 worker: /);
  });

  it('exits 1 and prints the shrunk program when a planted bug is caught (nothing is stored)', () => {
    const junit = tmp('mutant.xml');
    const r = fuzz('--time', '5', '--mutant', 'nested-begin-resets', '--junit', junit);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('program (');
    expect(r.stdout).toContain('groupBegin()');
    expect(r.stdout).not.toContain('stored:');
    expect(r.stdout).toMatch(/1 failure$/m);
    expect(readFileSync(junit, 'utf8')).toMatch(/<failure message="A23 \(freeGroupBegin inside an open group, and freeGroupEnd without one, are refused\): [^"]*" type="A23">/);
  });

  it('prints the kill table and exits 0 when every planted bug of a model dies', () => {
    const json = tmp('kill.json');
    const r = fuzz('--kill-table', '--target', 'prefix-cache', '--time-per-mutant', '10', '--seed', '11', '--json', json);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/no-coalescing\s+prefix-cache\s+contract\s+yes/);
    expect(r.stdout).toMatch(/11 of 11 planted bugs killed within 10s each$/m);
    const table = JSON.parse(readFileSync(json, 'utf8')) as { rows: { mutant: string; killed: boolean; detectMs: number }[] };
    expect(table.rows).toHaveLength(11);
    expect(table.rows.every((row) => row.killed && row.detectMs < 10_000)).toBe(true);
  });

  it.each([
    [['--time', 'soon'], /--time "soon" is not a number of seconds/],
    [['--target', 'nope'], /--target "nope" is not a target/],
    [['--target', 'host-pool'], /--target host-pool is now --target hicache/],
    [['--target', 'prefix-cache', '--mutant', 'cursor-inclusive'], /belongs to --target gpu-kernels/],
    [['--mutant', 'nope'], /--mutant "nope" is not a mutant/],
    [['--target', 'allocator', '--mutant', 'no-coalescing'], /belongs to --target prefix-cache/],
    [['--shard', '3/3'], /--shard "3\/3" is not I\/N/],
    [['--workers', '0'], /--workers "0" is not an integer/],
    [['--kill-table', '--mutant', 'no-coalescing'], /drop --mutant/],
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
    expect(r.stdout).toContain('no-coalescing');
    expect(r.stdout).toMatch(/capacity-unchecked\s+gpu-kernels\s+exact/);
    // No section sign: a mechanism names what the bug does, not a section of a document.
    expect(r.stdout).not.toContain('\u00a7');
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/CONTRACT\.md \(allocator A1–A\d+, host pool H1–H\d+\)/);
  });
});

// On the machine's WebGPU adapter (lavapipe in CI): without one these fail naming the fix, never skip.
describe('fuzz:cli,gpu-kernels', () => {
  it('runs the lock-step GPU model on two workers, one device each', () => {
    const json = tmp('gpu.json');
    const r = fuzz('--target', 'gpu-kernels', '--time', '2', '--seed', '42', '--workers', '2', '--json', json);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/gpu-kernels\s+exact\s+\d+\s+\d+\s+\d+\s+0\s+ok/);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^seed 42, shard 0\/1, 2 workers: \d+ runs, \d+ commands in [\d.]+s; 0 failures$/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { targets: { target: string; mode: string; runs: number; commands: number; failed: boolean }[] };
    expect(report.targets).toHaveLength(1);
    expect(report.targets[0]).toMatchObject({ target: 'gpu-kernels', mode: 'exact', failed: false });
    expect(report.targets[0]?.runs).toBeGreaterThan(0);
  });

  it('exits 1 and prints the shrunk program when a planted kernel bug is caught', () => {
    const r = fuzz('--time', '10', '--seed', '5', '--mutant', 'tail-first-page', '--workers', '1');
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('[gpu-differs]');
    expect(r.stdout).toMatch(/^ {4}extend\(\[/m);
    expect(r.stdout).toMatch(/gpu-kernels × tail-first-page\s+exact\s.*FAILED \(gpu-differs\)/);
    expect(r.stdout).not.toContain('stored:');
  });

  it('fails naming the fix when there is no WebGPU adapter (never a skip)', () => {
    // No Vulkan driver file the loader can find: Dawn offers no adapter.
    const r = runCli('fuzz.ts', ['--target', 'gpu-kernels', '--time', '1', '--workers', '1'], 60_000, { VK_ICD_FILENAMES: '/nonexistent/icd.json', VK_DRIVER_FILES: '/nonexistent/icd.json', CI: 'true' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/pnpm fuzz: the gpu-kernels target needs a WebGPU adapter\. No WebGPU adapter: .*To fix: install the Vulkan software driver/);
  });

  it('kills every planted kernel bug in the kill table', () => {
    const json = tmp('gpu-kill.json');
    const r = fuzz('--kill-table', '--target', 'gpu-kernels', '--time-per-mutant', '5', '--seed', '11', '--json', json);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/6 of 6 planted bugs killed within 5s each$/m);
    const table = JSON.parse(readFileSync(json, 'utf8')) as { rows: { mutant: string; target: string; killed: boolean }[] };
    expect(table.rows.map((row) => row.mutant)).toEqual(['cursor-inclusive', 'tail-first-page', 'part1-unbounded', 'page-count-floor', 'capacity-unchecked', 'free-unchecked']);
    expect(table.rows.every((row) => row.killed && row.target === 'gpu-kernels')).toBe(true);
  });
});

describe('fuzz:cli,replay', () => {
  it('replays a stored regression: exit 0 once it runs clean, 1 while it still fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-replay-'));
    const geometry = { kernelPageSize: 2, dcpSize: 1, poolPages: 3, needSort: false, checks: true };
    const clean = storeRegression('allocator', failureReport([alloc(4), freeRow(0)], geometry, 'fixed'), { seed: 5, batch: 0, shard: '0/1' }, dir);
    const ok = fuzz('--replay', clean.file);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('    alloc(4),\n    freeRow(0),\n');
    expect(ok.stdout).toMatch(/^fixed: the program runs clean$/m);
    const broken = storeRegression('allocator', failureReport([alloc(3)], geometry, 'broken'), { seed: 5, batch: 1, shard: '0/1' }, dir);
    const bad = fuzz('--replay', broken.file);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/still fails: ArgumentError: alloc size 3 is not a multiple of the page size 2/);
  });
});
