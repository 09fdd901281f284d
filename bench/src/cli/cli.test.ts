import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { GpuCase } from '../gpu-kernels/gpu-cases.js';
import type { GpuOutcome } from '../gpu-kernels/gpu-rounds.js';
import { childBundleDirFor } from '../harness/child-bundles.js';
import type { Pinning } from '../harness/pinning.js';
import { captureIo } from '../test-support/capture-io.js';
import { syntheticReport, syntheticRounds } from '../test-support/synthetic.js';
import { syntheticChildren } from '../test-support/synthetic-child.js';
import { benchMain } from './bench-cli.js';
import { compareMain } from './compare-cli.js';

const kBenchDir = fileURLToPath(new URL('../../', import.meta.url));
const tmp = (name: string): string => join(mkdtempSync(join(tmpdir(), 'kvfuzz-bench-')), name);

const noPin = (): Pinning => ({ used: false, cpu: null, prefix: [], note: 'not pinned: test' });
const lastLine = (s: string): string => s.trim().split('\n').at(-1) ?? '';

describe('bench:cli,bench', () => {
  it('bad usage exits 2 with the reason on stderr', async () => {
    for (const argv of [['--bogus'], ['--margin', '3'], ['--rounds-min', '9', '--rounds-max', '3'], ['--cpu', '1', '--no-pin'], ['--resamples', '5'], ['--filter', 'no-such-bench'], ['--isolation', 'process'], ['--layout', 'tsx']]) {
      const io = captureIo();
      expect(await benchMain(argv, io), argv.join(' ')).toBe(2);
      expect(io.stderr()).toMatch(/^pnpm bench: /);
    }
  });

  it('--filter with 0 matches says so', async () => {
    const io = captureIo();
    expect(await benchMain(['--quick', '--filter', 'no-such-bench'], io)).toBe(2);
    expect(io.stderr()).toMatch(/0 matched of \d+ quick benches/);
  });

  it('--list shows the addresses and the count last', async () => {
    const io = captureIo();
    expect(await benchMain(['--list', '--quick', '--filter', 'allocator-core:alloc-extend'], io)).toBe(0);
    expect(io.stdout()).toContain('allocator-core:alloc-extend:allocExtend+free 4096 8×64');
    expect(lastLine(io.stdout())).toBe('4 quick benches in 1 file, each a checks-on / checks-off pair (baseline: checks-off)');
  });

  it('writes the JSON and both side files, prints the summary last, exits 0 when the checks are free', async () => {
    const json = tmp('run.json');
    const io = captureIo();
    const children = syntheticChildren(() => 1);
    const status = await benchMain(['--quick', '--filter', 'host-pool', '--json', json, '--resamples', '2000'], io, { startChild: children.start, detectPinning: noPin });
    expect(status, io.stderr()).toBe(0);
    // Two children (one per variant) per case per round.
    expect(lastLine(io.stdout())).toMatch(/^bench --quick: 2 benches, 5 rounds, 20 children \(not pinned\) in [\d.]+s — 2 pass, 0 fail, 0 inconclusive at margin 3\.0%; wrote /);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { kvfuzz: string; settings: { isolation: string }; ratios: { name: string; verdict: string }[] };
    expect(report.kvfuzz).toBe('bench/1');
    expect(report.settings.isolation).toBe('case');
    expect(report.ratios.map((r) => r.name)).toEqual(['host-pool:alloc-free:alloc+free fragmented 1×1', 'host-pool:alloc-free:alloc+free fragmented 8×64']);
    expect(existsSync(json.replace(/\.json$/, '.github-action-benchmark.json'))).toBe(true);
    expect(existsSync(json.replace(/\.json$/, '.bmf.json'))).toBe(true);
  });

  it('--isolation file gives the cases of a file one pair of children', async () => {
    const json = tmp('run.json');
    const io = captureIo();
    const children = syntheticChildren(() => 1);
    const status = await benchMain(['--quick', '--filter', 'host-pool', '--isolation', 'file', '--json', json, '--resamples', '2000'], io, { startChild: children.start, detectPinning: noPin });
    expect(status, io.stderr()).toBe(0);
    expect(lastLine(io.stdout())).toMatch(/ 2 benches, 5 rounds, 10 children /);
    expect(children.starts.every((s) => s.cases.length === 2)).toBe(true);
    expect((JSON.parse(readFileSync(json, 'utf8')) as { settings: { isolation: string } }).settings.isolation).toBe('file');
  });

  it('--layout modules readies the children in that layout, starts them from its folder, and says so in the report', async () => {
    const json = tmp('run.json');
    const io = captureIo();
    const children = syntheticChildren(() => 1);
    const prepared: string[] = [];
    const dirs = new Set<string>();
    const status = await benchMain(['--quick', '--filter', 'host-pool', '--layout', 'modules', '--json', json, '--resamples', '2000'], io, {
      startChild: (start, _pinning, bundleDir) => {
        dirs.add(bundleDir);
        return children.start(start);
      },
      prepareChildren: async (files, layout) => {
        prepared.push(`${layout}: ${files.join(' ')}`);
      },
      detectPinning: noPin,
    });
    expect(status, io.stderr()).toBe(0);
    expect(prepared).toEqual(['modules: host-pool/alloc-free.bench.ts']);
    expect([...dirs]).toEqual([childBundleDirFor('modules')]);
    expect(childBundleDirFor('modules')).not.toBe(childBundleDirFor('bundle'));
    expect(io.stderr()).toMatch(/--layout modules: building the packages/);
    expect(lastLine(io.stdout())).toMatch(/^bench --quick --layout modules: 2 benches/);
    expect((JSON.parse(readFileSync(json, 'utf8')) as { settings: { layout: string } }).settings.layout).toBe('modules');
  });

  it('exits 1 and names the check when it costs more than the margin', async () => {
    const io = captureIo();
    const children = syntheticChildren((name) => (name.endsWith('8×64') ? 1.1 : 1));
    const status = await benchMain(['--quick', '--filter', 'host-pool', '--json', tmp('run.json'), '--resamples', '2000'], io, { startChild: children.start, detectPinning: noPin });
    expect(status).toBe(1);
    expect(io.stdout()).toMatch(/host-pool:alloc-free:alloc\+free fragmented 8×64: \+\d+(\.\d)?%/);
    expect(lastLine(io.stdout())).toMatch(/1 pass, 1 fail, 0 inconclusive/);
  });
});

describe('bench:cli,gpu', () => {
  /** A GPU group that never touches the device: two rounds per case, checks ratio 1, GPU 3× the CPU. */
  const runGpu = async (cases: readonly GpuCase[]): Promise<GpuOutcome> => ({
    cases: cases.map((c) => ({
      case: c,
      repsPerSlice: 8,
      rounds: syntheticRounds(6, c.kind === 'checks' ? 1 : 3, 0.005, 4).map((r) => ({
        round: r.round,
        first: c.baseline,
        baselineNs: r.offNs,
        comparedNs: r.onNs,
        baselineEmptyNs: 100,
        comparedEmptyNs: 100,
        ratio: r.ratio,
        cpuShareMin: 1,
      })),
    })),
    roundsRun: 6,
    elapsedSeconds: 1,
    stopReason: 'decided',
    timing: 'timestamp-query',
    device: { vendor: 'mesa', architecture: 'software', device: 'llvmpipe', description: 'llvmpipe: synthetic', isFallbackAdapter: true, cpuEmulated: true, timestampQuery: true, timestampQuantization: false },
  });

  it('--list --gpu lists the GPU benches and counts them last', async () => {
    const io = captureIo();
    expect(await benchMain(['--list', '--quick', '--gpu', '--filter', 'gpu-kernels'], io)).toBe(0);
    expect(io.stdout()).toContain('gpu-kernels:free-batch:freeBatch 16384');
    expect(lastLine(io.stdout())).toBe('6 quick GPU benches: 2 checked / unchecked free pairs, 4 GPU-vs-CPU comparisons (informational)');
  });

  it('a GPU filter without --gpu matches nothing and says why', async () => {
    const io = captureIo();
    expect(await benchMain(['--quick', '--filter', 'gpu-kernels'], io)).toBe(2);
    expect(io.stderr()).toMatch(/0 matched .*; GPU benches run with --gpu/);
  });

  it('a GPU-only run writes the GPU section, keeps GPU / CPU ratios informational, exits 0', async () => {
    const json = tmp('gpu.json');
    const io = captureIo();
    const children = syntheticChildren(() => 1);
    const status = await benchMain(['--quick', '--gpu', '--filter', 'gpu-kernels', '--json', json, '--resamples', '2000'], io, { startChild: children.start, detectPinning: noPin, runGpu });
    expect(status, io.stdout() + io.stderr()).toBe(0);
    expect(io.stdout()).toContain('GPU kernel vs CPU reference (informational; CPU-emulated adapter (llvmpipe: synthetic)');
    expect(lastLine(io.stdout())).toMatch(/^bench --quick: 2 benches, 6 rounds, 0 children .* 2 pass, 0 fail, 0 inconclusive at margin 3\.0%; GPU llvmpipe: synthetic \(CPU-emulated\), timestamp-query, 4 informational GPU \/ CPU ratios; wrote /);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { machine: { gpu: { cpuEmulated: boolean } }; gpu: { comparisons: unknown[] }; ratios: { verdict: string; informational?: boolean }[] };
    expect(report.machine.gpu.cpuEmulated).toBe(true);
    expect(report.gpu.comparisons).toHaveLength(4);
    // GPU 3× slower than the CPU: "fail" by the margin rule, yet informational, so the run passes.
    expect(report.ratios.filter((r) => r.informational === true).map((r) => r.verdict)).toEqual(['fail', 'fail', 'fail', 'fail']);
  });
});

describe('bench:cli,compare', () => {
  const write = (name: string, doc: unknown): string => {
    const path = tmp(name);
    writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
    return path;
  };
  const base = write('base.json', syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02, 0.01, 1) }]));

  it('exits 1 on a 10% regression of the checks ratio, with a table and the summary last', () => {
    const cur = write('cur.json', syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.1, 0.01, 2) }]));
    const io = captureIo();
    expect(compareMain([base, cur], io)).toBe(1);
    expect(io.stdout()).toMatch(/pkg:op:a\s+checks ratio\s+1\.0\d\d\s+1\.1\d\d\s+1\.\d{3} \[1\.\d{3}, 1\.\d{3}\]\s+REGRESSION/);
    expect(lastLine(io.stdout())).toMatch(/^compare: 1 bench, 3 metrics at margin 5% — 2 regressions, /);
  });

  it('exits 0 on a 1% change', () => {
    const cur = write('cur.json', syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.01, 0.01, 3) }]));
    const io = captureIo();
    expect(compareMain([base, cur], io)).toBe(0);
    expect(lastLine(io.stdout())).toMatch(/0 regressions/);
  });

  it('exits 2 on bad input', () => {
    const cases: [string[], RegExp][] = [
      [[base], /exactly two reports/],
      [[base, '/nonexistent/kvfuzz.json'], /CURRENT \/nonexistent\/kvfuzz\.json: ENOENT/],
      [[base, write('bad.json', '{not json')], /not JSON/],
      [[base, write('other.json', { kvfuzz: 'fuzz-campaign/1' })], /kvfuzz is "fuzz-campaign\/1"/],
      [[base, base, '--margin', 'x'], /--margin x/],
      [[base, base, '--times', 'never'], /--times never/],
    ];
    for (const [argv, message] of cases) {
      const io = captureIo();
      expect(compareMain(argv, io), argv.join(' ')).toBe(2);
      expect(io.stderr()).toMatch(message);
    }
  });
});

describe('bench:cli,process', () => {
  it.each([
    ['bench.ts', ['--no-such-option']],
    ['compare.ts', ['only-one.json']],
  ])('%s %s exits 2 as a process', (entry, argv) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=source', `src/cli/${entry}`, ...argv], { cwd: kBenchDir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^pnpm bench/);
  });
});
