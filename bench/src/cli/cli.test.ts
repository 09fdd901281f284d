import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { GpuCase } from '../gpu-kernels/gpu-cases.js';
import type { GpuOutcome } from '../gpu-kernels/gpu-rounds.js';
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
  const kBookkeeping = 'host-pool:alloc-free:alloc+free fragmented';
  const kCopy = 'host-pool:kv-copy:alloc+copy+free fragmented';
  const run = (argv: string[], cost: (name: string) => number, onBias = 1) => {
    const io = captureIo();
    const children = syntheticChildren(cost, 1, () => 1, onBias);
    return { io, children, status: benchMain(argv, io, { startChild: children.start, detectPinning: noPin }) };
  };
  const readJson = <T,>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

  it('bad usage exits 2 with the reason on stderr', async () => {
    const argvs = [
      ['--bogus'], ['--margin', '3'], ['--rounds-min', '9', '--rounds-max', '3'], ['--cpu', '1', '--no-pin'], ['--filter', 'no-such-bench'],
      ['--isolation', 'file'], ['--layout', 'modules'], ['--resamples', '2000'],
      ['--ci'], ['--baseline', 'x.json'], ['--ci', '--aa', '--baseline', 'x.json'], ['--ci', '--baseline', '/nonexistent/kvfuzz.json'],
      ['--model', 'gpt-5'], ['--kv-bytes-per-token', '0'], ['--kv-bytes-per-token', '131073'], ['--model', 'llama-3.2-1b', '--kv-bytes-per-token', '4096'],
    ];
    for (const argv of argvs) {
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

  it('--list shows the addresses, which gate, and the count last', async () => {
    const io = captureIo();
    expect(await benchMain(['--list', '--quick', '--filter', 'allocator-core:alloc-extend'], io)).toBe(0);
    expect(io.stdout()).toContain('allocator-core:alloc-extend:allocExtend+free 4096 8×64');
    expect(lastLine(io.stdout())).toBe('4 quick benches in 1 file, each a checks-on / checks-off pair (baseline: checks-off)');
    const host = captureIo();
    expect(await benchMain(['--list', '--quick', '--filter', 'host-pool'], host)).toBe(0);
    expect(host.stdout()).toMatch(/host-pool:alloc-free:alloc\+free fragmented 1×1\s+info /);
    expect(host.stdout()).toMatch(/host-pool:kv-copy:alloc\+copy\+free fragmented 1×1\s+gated /);
    expect(lastLine(host.stdout())).toBe('4 quick benches in 2 files, each a checks-on / checks-off pair (baseline: checks-off), 2 informational');
  });

  it('writes the JSON and both side files, prints the summary last, exits 0 when the checks are free', async () => {
    const json = tmp('run.json');
    const { io, children, status } = run(['--quick', '--filter', 'host-pool', '--json', json], () => 1);
    expect(await status, io.stderr()).toBe(0);
    // Two children (one per variant) per case per round; quick runs 9 rounds.
    expect(lastLine(io.stdout())).toMatch(/^bench --quick: 2 gated benches, 9 rounds, 72 children \(not pinned\) in [\d.]+s — 2 pass, 0 fail, 0 inconclusive at margin 3\.0% \(\+2 informational\); wrote /);
    const report = readJson<{ kvfuzz: string; settings: { isolation: string; interval: string; looks: number[]; confidence: number; kvModel: { name: string; kvBytesPerToken: number } }; ratios: { name: string; verdict: string; informational?: boolean }[] }>(json);
    expect(report.kvfuzz).toBe('bench/1');
    expect(report.settings).toMatchObject({ isolation: 'case', interval: 'order-statistic', looks: [9], confidence: 0.95, kvModel: { name: 'qwen2.5-0.5b', kvBytesPerToken: 12_288 } });
    expect(report.ratios.map((r) => [r.name, r.informational === true])).toEqual([
      [`${kBookkeeping} 1×1`, true], [`${kBookkeeping} 8×64`, true], [`${kCopy} 1×1`, false], [`${kCopy} 8×64`, false],
    ]);
    expect(children.starts.every((s) => s.context.kvBytesPerToken === 12_288)).toBe(true);
    expect(existsSync(json.replace(/\.json$/, '.github-action-benchmark.json'))).toBe(true);
    expect(existsSync(json.replace(/\.json$/, '.bmf.json'))).toBe(true);
  });

  it('--model and --kv-bytes-per-token set the copy cycle\'s KV bytes, handed to every child and recorded', async () => {
    for (const [argv, name, bytes] of [[['--model', 'llama-3.2-1b'], 'llama-3.2-1b', 32_768], [['--kv-bytes-per-token', '4096'], 'custom', 4096]] as const) {
      const json = tmp('run.json');
      const { io, children, status } = run(['--quick', '--filter', kCopy, '--json', json, ...argv], () => 1);
      expect(await status, io.stderr()).toBe(0);
      expect(children.starts.every((s) => s.context.kvBytesPerToken === bytes)).toBe(true);
      expect(readJson<{ settings: { kvModel: unknown } }>(json).settings.kvModel).toEqual({ name, kvBytesPerToken: bytes });
      expect(io.stderr()).toContain(`host pool copy cycle: ${name}, ${bytes} B/token`);
    }
  });

  it('exits 1 and names the check when a gated check costs more than the margin', async () => {
    const { io, status } = run(['--quick', '--filter', 'host-pool', '--json', tmp('run.json')], (name) => (name === `${kCopy} 8×64` ? 1.1 : 1));
    expect(await status).toBe(1);
    expect(io.stdout()).toMatch(/host-pool:kv-copy:alloc\+copy\+free fragmented 8×64: \+\d+(\.\d)?%/);
    expect(lastLine(io.stdout())).toMatch(/1 pass, 1 fail, 0 inconclusive/);
  });

  it('an informational ratio never fails the run: the bookkeeping cycle at +20% is reported, exit 0', async () => {
    const { io, status } = run(['--quick', '--filter', 'host-pool', '--json', tmp('run.json')], (name) => (name.startsWith(kBookkeeping) ? 1.2 : 1));
    expect(await status, io.stdout()).toBe(0);
    expect(io.stdout()).toMatch(/host-pool:alloc-free:alloc\+free fragmented 1×1 .* fail \(info\)/);
    expect(io.stdout()).not.toMatch(/checks costing more than/);
    expect(lastLine(io.stdout())).toMatch(/2 pass, 0 fail, 0 inconclusive at margin 3\.0% \(\+2 informational\)/);
  });

  it('--quick never fails on evidence that cannot support a verdict: at the margin, or too few rounds, it is inconclusive and exits 0', async () => {
    const atMargin = run(['--quick', '--filter', kCopy, '--json', tmp('run.json')], () => 1.03);
    expect(await atMargin.status).toBe(0);
    expect(lastLine(atMargin.io.stdout())).toMatch(/0 pass, 0 fail, 2 inconclusive/);
    // Five rounds of a 20% cost: all above the margin, but five rounds cannot reach 95% (2 × 2^−5 > 5%).
    const few = run(['--quick', '--filter', kCopy, '--rounds-min', '5', '--rounds-max', '5', '--json', tmp('run.json')], () => 1.2);
    expect(await few.status).toBe(0);
    expect(few.io.stderr()).toMatch(/a verdict at 95% needs 6 rounds/);
    expect(lastLine(few.io.stdout())).toMatch(/0 pass, 0 fail, 2 inconclusive/);
  });

  it('--aa: identical arms pass with intervals holding 1, exit 0; a harness that favours one arm is caught, exit 1', async () => {
    const clean = run(['--quick', '--aa', '--filter', 'host-pool', '--json', tmp('aa.json')], () => 2);
    expect(await clean.status, clean.io.stdout()).toBe(0);
    expect(clean.io.stdout()).toMatch(/A\/A calibration .*: 4 as expected/);
    const json = tmp('aa-biased.json');
    const biased = run(['--quick', '--aa', '--filter', 'host-pool', '--json', json], () => 1, 1.1);
    expect(await biased.status).toBe(1);
    expect(biased.io.stdout()).toMatch(/false fails \(the harness reports a cost where there is none\): host-pool:alloc-free/);
    expect(readJson<{ calibration: { ok: number; falseFail: string[] } }>(json).calibration).toMatchObject({ ok: 0, falseFail: [`${kBookkeeping} 1×1`, `${kBookkeeping} 8×64`, `${kCopy} 1×1`, `${kCopy} 8×64`] });
  });

  it('--ci --baseline: exit 1 only on a significant regression of a gated ratio against the baseline', async () => {
    const baseline = tmp('baseline.json');
    // The baseline: one gated copy case already costs 10% (its own verdict fails), the bookkeeping cycle 2%.
    const cost = (copy8: number, bookkeeping: number) => (name: string) => (name === `${kCopy} 8×64` ? copy8 : name.startsWith(kBookkeeping) ? bookkeeping : 1);
    expect(await run(['--quick', '--filter', 'host-pool', '--json', baseline], cost(1.1, 1.02)).status).toBe(1);
    // Same code: the failing case fails again, but nothing regressed: CI passes.
    const same = run(['--quick', '--ci', '--baseline', baseline, '--filter', 'host-pool', '--json', tmp('cur.json')], cost(1.1, 1.02));
    expect(await same.status, same.io.stdout()).toBe(0);
    expect(same.io.stdout()).toMatch(/^ci: no gated checks ratio regressed by more than 3\.0% against /m);
    // The informational bookkeeping ratio regresses by 15%: flagged, still passing.
    const info = run(['--quick', '--ci', '--baseline', baseline, '--filter', 'host-pool', '--json', tmp('cur.json')], cost(1.1, 1.02 * 1.15));
    expect(await info.status).toBe(0);
    expect(info.io.stdout()).toMatch(/informational regressions \(not failing\): host-pool:alloc-free/);
    // A gated ratio regresses by 10%: CI fails and names it.
    const worse = run(['--quick', '--ci', '--baseline', baseline, '--filter', 'host-pool', '--json', tmp('cur.json')], (name) => (name === `${kCopy} 1×1` ? 1.1 : cost(1.1, 1.02)(name)));
    expect(await worse.status).toBe(1);
    expect(worse.io.stdout()).toMatch(/host-pool:kv-copy:alloc\+copy\+free fragmented 1×1\s+1\.0\d\d\s+1\.1\d\d\s+1\.\d{3} \[1\.\d{3}, 1\.\d{3}\]\s+REGRESSION/);
    expect(worse.io.stdout()).toMatch(/^ci: 1 gated checks ratio regressed/m);
    // A full-run baseline for a quick run is refused before anything runs.
    const fullBaseline = tmp('full.json');
    writeFileSync(fullBaseline, readFileSync(baseline, 'utf8').replace('"mode": "quick"', '"mode": "full"'));
    const mismatch = run(['--quick', '--ci', '--baseline', fullBaseline, '--filter', 'host-pool'], () => 1);
    expect(await mismatch.status).toBe(2);
    expect(mismatch.io.stderr()).toMatch(/is a full run; this is a quick run/);
    expect(mismatch.children.starts).toHaveLength(0);
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
    const status = await benchMain(['--quick', '--gpu', '--filter', 'gpu-kernels', '--json', json], io, { startChild: children.start, detectPinning: noPin, runGpu });
    expect(status, io.stdout() + io.stderr()).toBe(0);
    expect(io.stdout()).toContain('GPU kernel vs CPU reference (informational; CPU-emulated adapter (llvmpipe: synthetic)');
    expect(lastLine(io.stdout())).toMatch(/^bench --quick: 2 gated benches, 6 rounds, 0 children .* 2 pass, 0 fail, 0 inconclusive at margin 3\.0%; GPU llvmpipe: synthetic \(CPU-emulated\), timestamp-query, 4 informational GPU \/ CPU ratios; wrote /);
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

  it('--json writes the compare as bench-compare/1, rows and regressions as printed', () => {
    const cur = write('cur.json', syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.1, 0.01, 2) }]));
    const json = join(tmp('out'), 'nested', 'compare.json');
    expect(compareMain([base, cur, '--json', json], captureIo())).toBe(1);
    const doc = JSON.parse(readFileSync(json, 'utf8')) as { kvfuzz: string; margin: number; rows: { name: string; metric: string; status: string }[]; regressions: string[]; status: number };
    expect(doc.kvfuzz).toBe('bench-compare/1');
    expect(doc.margin).toBe(0.05);
    expect(doc.rows.find((r) => r.metric === 'checks ratio')).toMatchObject({ name: 'pkg:op:a', status: 'regression' });
    expect(doc.regressions).toContain('pkg:op:a (checks ratio)');
    expect(doc.status).toBe(1);
  });

  it('exits 0 on a 1% change', () => {
    const cur = write('cur.json', syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.01, 0.01, 3) }]));
    const io = captureIo();
    expect(compareMain([base, cur], io)).toBe(0);
    expect(lastLine(io.stdout())).toMatch(/0 regressions/);
  });

  it('--verdicts: exit 0 when two runs agree on every case, 1 naming the cases that differ', () => {
    const first = write('first.json', syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.0, 0.01, 1) }, { name: 'pkg:op:b', rounds: syntheticRounds(12, 1.2, 0.01, 2) }]));
    const same = write('same.json', syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.0, 0.01, 3) }, { name: 'pkg:op:b', rounds: syntheticRounds(12, 1.2, 0.01, 4) }]));
    const other = write('other.json', syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.0, 0.01, 5) }, { name: 'pkg:op:b', rounds: syntheticRounds(12, 1.03, 0.02, 6) }]));
    const io = captureIo();
    expect(compareMain(['--verdicts', first, same], io)).toBe(0);
    expect(lastLine(io.stdout())).toBe('verdicts: 2 of 2 cases agree');
    const differ = captureIo();
    expect(compareMain(['--verdicts', first, other], differ)).toBe(1);
    expect(differ.stdout()).toMatch(/pkg:op:b\s+fail 1\.\d{3} \[1\.\d{3}, 1\.\d{3}\]\s+inconclusive 1\.0\d{2} \[\d\.\d{3}, 1\.\d{3}\]\s+ratio moved/);
    expect(lastLine(differ.stdout())).toBe('verdicts: 1 of 2 cases agree, 1 differ (1 ratio moved)');
    const json = tmp('verdicts.json');
    expect(compareMain(['--verdicts', first, other, '--json', json], captureIo())).toBe(1);
    const doc = JSON.parse(readFileSync(json, 'utf8')) as { kvfuzz: string; agree: number; differ: { name: string; why: string; first: { verdict: string }; second: { verdict: string; ciHigh: number } }[]; status: number };
    expect(doc).toMatchObject({ kvfuzz: 'bench-verdicts/1', agree: 1, status: 1 });
    expect(doc.differ).toHaveLength(1);
    expect(doc.differ[0]).toMatchObject({ name: 'pkg:op:b', why: 'ratio moved', first: { verdict: 'fail' }, second: { verdict: 'inconclusive' } });
  });

  it('exits 2 on bad input', () => {
    const cases: [string[], RegExp][] = [
      [[base], /exactly two reports/],
      [[base, '/nonexistent/kvfuzz.json'], /CURRENT \/nonexistent\/kvfuzz\.json: ENOENT/],
      [[base, write('bad.json', '{not json')], /not JSON/],
      [[base, write('other.json', { kvfuzz: 'fuzz-campaign/1' })], /kvfuzz is "fuzz-campaign\/1"/],
      [[base, base, '--margin', 'x'], /--margin x/],
      [[base, base, '--times', 'never'], /--times never/],
      [[base, base, '--json', ''], /--json needs a file name/],
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
