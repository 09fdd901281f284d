import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alloc, freeRow } from '../src/models/allocator/program.js';
import { kRegressionDirVariable, storeRegression } from '../src/regressions/regression-store.js';
import { failureReport } from './support/failure-report.js';

const kFuzzDir = fileURLToPath(new URL('..', import.meta.url));
/** Vitest's command-line entry, run with this Node the way `pnpm test` runs it. */
const kVitestCli = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
/** One child Vitest run: its start-up dominates, a few seconds. */
const kChildTimeoutMs = 120_000;

/** The allocator at page size 2, where `alloc(3)` is refused by the reference with an ArgumentError. */
const geometry = { kernelPageSize: 2, dcpSize: 1, poolPages: 3, needSort: false, checks: true };
const campaign = { seed: 5, batch: 0, shard: '0/1' };

interface ChildReport {
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly testResults: readonly { readonly assertionResults: readonly { readonly title: string; readonly status: string; readonly failureMessages: readonly string[] }[] }[];
}

/**
 * Runs the store's replay file (`regressions/replay-store.test.ts`) in a child Vitest, as
 * `pnpm test` does, over the store `store`. Its report goes to a file of its own, so the parent
 * run's `test-results/vitest.json` is left alone.
 */
function replayStore(store: string): { status: number | null; output: string; report: ChildReport } {
  const reportFile = join(mkdtempSync(join(tmpdir(), 'kvfuzz-replay-report-')), 'report.json');
  // The parent run's own variables would tell the child it is a worker of another run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'TEST'));
  const r = spawnSync(process.execPath, [kVitestCli, 'run', 'regressions/replay-store.test.ts', '--reporter=json', `--outputFile=${reportFile}`], {
    cwd: kFuzzDir,
    encoding: 'utf8',
    timeout: kChildTimeoutMs,
    env: { ...env, [kRegressionDirVariable]: store },
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}`, report: JSON.parse(readFileSync(reportFile, 'utf8')) as ChildReport };
}

function results(report: ChildReport): { title: string; status: string; failure: string }[] {
  return report.testResults.flatMap((f) => f.assertionResults.map((a) => ({ title: a.title, status: a.status, failure: a.failureMessages.join('\n') })));
}

describe('fuzz:regressions,replay-store', () => {
  it('fails the run while a stored failure still fails', () => {
    const store = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    const s = storeRegression('allocator', failureReport([alloc(3)], geometry, 'alloc(3) was refused at page size 2'), campaign, store);
    const r = replayStore(store);
    expect(r.status, r.output).toBe(1);
    expect(results(r.report)).toEqual([
      { title: 'loads every file in the store (1 files)', status: 'passed', failure: '' },
      { title: `allocator/${s.signature}.json: alloc(3) was refused at page size 2`, status: 'failed', failure: expect.stringContaining('alloc size 3 is not a multiple of the page size 2') },
    ]);
  });

  it('passes the run once every stored failure runs clean', () => {
    const store = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    storeRegression('allocator', failureReport([alloc(4), freeRow(0)], geometry, 'fixed since'), campaign, store);
    const r = replayStore(store);
    expect(r.status, r.output).toBe(0);
    expect(r.report.numPassedTests).toBe(2);
    expect(r.report.numFailedTests).toBe(0);
  });

  it('fails the run on a file that does not load, and never runs its text', () => {
    const store = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    const marker = join(store, 'pwned');
    mkdirSync(join(store, 'allocator'));
    writeFileSync(
      join(store, 'allocator', 'old-0123456789.json'),
      JSON.stringify({ kvfuzz: 'kvfuzz-regression/1', target: 'allocator', geometry, program: [`alloc(2)); require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x'); ((1`] }),
    );
    const r = replayStore(store);
    expect(r.status, r.output).toBe(1);
    expect(results(r.report).map((t) => t.status)).toEqual(['failed', 'failed']);
    expect(results(r.report)[0]?.failure).toMatch(/old-0123456789\.json is a kvfuzz-regression\/1 file: it stores its program as code/);
    expect(existsSync(marker)).toBe(false);
  });
});
