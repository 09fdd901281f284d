import { describe, expect, it } from 'vitest';
import { kSyntheticMachine, noisy, syntheticReport, syntheticRounds } from '../test-support/synthetic.js';
import type { BenchReport } from './bench-report.js';
import { classifyChange, compareReports, kCompareMarginDefault, verdictAgreement, verdictDifference } from './compare-reports.js';

const base = syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02, 0.01, 1) }]);
const opts = { margin: kCompareMarginDefault, times: 'auto' as const };

/** The report with `name`'s ratio marked informational (as a pair registered `gated: false` is). */
function informational(r: BenchReport, name: string): BenchReport {
  return { ...r, ratios: r.ratios.map((x) => (x.name === name ? { ...x, informational: true } : x)) };
}

function rowOf(current: ReturnType<typeof syntheticReport>, metric: string) {
  return compareReports(base, current, opts).rows.find((r) => r.metric === metric);
}

describe('bench:compare,test', () => {
  it('flags a 10% regression of the checks ratio', () => {
    const current = syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.1, 0.01, 2) }]);
    const row = rowOf(current, 'checks ratio');
    expect(row?.status).toBe('regression');
    expect(row?.change?.ciLow).toBeGreaterThan(1.05);
    // The checks-on time is 10% slower too (same machine: times gate); checks-off did not move.
    expect(compareReports(base, current, opts).regressions.map((r) => r.metric)).toEqual(['checks ratio', 'time checks-on']);
  });

  it('does not flag a 1% change', () => {
    const current = syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.01, 0.01, 3) }]);
    expect(rowOf(current, 'checks ratio')?.status).not.toBe('regression');
    expect(compareReports(base, current, opts).regressions).toHaveLength(0);
  });

  it('flags a 10% slower time on the same machine, and only informs on another CPU', () => {
    const slow = (machine = kSyntheticMachine) => syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02, 0.01, 1, 1100) }], machine);
    const same = compareReports(base, slow(), opts);
    expect(same.timesGate).toBe(true);
    expect(same.regressions.map((r) => r.metric).sort()).toEqual(['time checks-off', 'time checks-on']);
    const other = compareReports(base, slow({ ...kSyntheticMachine, cpu: { ...kSyntheticMachine.cpu, model: 'Other CPU' } }), opts);
    expect(other.timesGate).toBe(false);
    expect(other.timesNote).toMatch(/informational: CPU Synthetic CPU vs Other CPU/);
    expect(other.regressions).toHaveLength(0);
    expect(other.rows.find((r) => r.metric === 'time checks-off')?.status).toBe('regression');
    expect(compareReports(base, slow(), { ...opts, times: 'info' }).regressions).toHaveLength(0);
  });

  it('a checks ratio does not gate across isolations: reports before isolation existed ran per file', () => {
    const worse = syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.1, 0.01, 2) }]);
    const withIsolation = (r: typeof base, isolation: 'case' | 'file' | undefined): typeof base => {
      const { isolation: _, ...rest } = r.settings;
      return { ...r, settings: isolation === undefined ? rest : { ...rest, isolation } };
    };
    const same = compareReports(withIsolation(base, 'case'), withIsolation(worse, 'case'), opts);
    expect(same.ratiosNote).toBeNull();
    expect(same.regressions.map((r) => r.metric)).toContain('checks ratio');
    const across = compareReports(withIsolation(base, undefined), withIsolation(worse, 'case'), opts);
    expect(across.ratiosNote).toMatch(/isolation file vs case/);
    const row = across.rows.find((r) => r.metric === 'checks ratio');
    expect(row?.status).toBe('regression');
    expect(row?.gating).toBe(false);
    expect(across.regressions.map((r) => r.metric)).not.toContain('checks ratio');
  });

  it('a checks ratio does not gate across layouts: reports without one ran the bundle', () => {
    const worse = syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.1, 0.01, 2) }]);
    const withLayout = (r: typeof base, layout: 'bundle' | 'modules' | undefined): typeof base => {
      const { layout: _, ...rest } = r.settings;
      return { ...r, settings: layout === undefined ? rest : { ...rest, layout } };
    };
    expect(compareReports(withLayout(base, undefined), withLayout(worse, 'bundle'), opts).regressions.map((r) => r.metric)).toContain('checks ratio');
    const across = compareReports(withLayout(base, 'bundle'), withLayout(worse, 'modules'), opts);
    expect(across.ratiosNote).toMatch(/layout bundle vs modules/);
    expect(across.rows.find((r) => r.metric === 'checks ratio')?.gating).toBe(false);
    expect(across.regressions.map((r) => r.metric)).not.toContain('checks ratio');
  });

  it('a GPU bench checks ratio gates only on the same adapter, and another adapter makes times informational', () => {
    const gpu = (description: string) => ({ ...kSyntheticMachine, gpu: { vendor: 'v', architecture: 'a', device: 'd', description, isFallbackAdapter: false, cpuEmulated: false, timestampQuery: true, timestampQuantization: false, note: '' } });
    const rounds = (scale: number, seed: number) => [{ name: 'gpu-kernels:free:a', rounds: syntheticRounds(12, 1.02 * scale, 0.01, seed) }];
    const asGpu = (r: typeof base) => ({ ...r, benches: r.benches.map((b) => ({ ...b, package: 'gpu-kernels' })) });
    const b = asGpu(syntheticReport(rounds(1, 1), gpu('lavapipe')));
    const sameAdapter = compareReports(b, asGpu(syntheticReport(rounds(1.1, 2), gpu('lavapipe'))), opts);
    expect(sameAdapter.regressions.map((r) => r.metric)).toContain('checks ratio');
    const other = compareReports(b, asGpu(syntheticReport(rounds(1.1, 2), gpu('H200'))), opts);
    expect(other.ratiosNote).toMatch(/GPU v d lavapipe vs v d H200/);
    expect(other.timesGate).toBe(false);
    expect(other.timesNote).toMatch(/GPU v d lavapipe vs v d H200/);
    expect(other.regressions).toHaveLength(0);
  });

  it('lists benches only in one report, and says when rounds are too few', () => {
    const current = syntheticReport([{ name: 'pkg:op:b', rounds: syntheticRounds(3, 1, 0.01, 4) }]);
    const r = compareReports(base, current, opts);
    expect(r.missing).toEqual(['pkg:op:a']);
    expect(r.added).toEqual(['pkg:op:b']);
    const few = syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(3, 2, 0.01, 5) }]);
    expect(rowOf(few, 'checks ratio')?.status).toBe('too-few-rounds');
  });

  it('two runs of identical code whose rounds fall in two speeds in different proportions: no regression', () => {
    // Checks-off times land at 60 µs or 108 µs child by child; the medians jump between the modes (1.8×).
    const modes = (fast: number, seed: number) => syntheticRounds(12, 1.0, 0.01, seed).map((r, i) => {
      const offNs = (i < fast ? 60_000 : 108_000) * (noisy(1, 1, 0.01, seed + i)[0] as number);
      return { ...r, offNs, onNs: offNs * r.ratio };
    });
    const a = syntheticReport([{ name: 'pkg:op:a', rounds: modes(9, 10) }]);
    const b = syntheticReport([{ name: 'pkg:op:a', rounds: modes(5, 30) }]);
    const row = compareReports(a, b, opts).rows.find((r) => r.metric === 'time checks-off');
    expect((row?.current ?? 0) / (row?.baseline ?? 1)).toBeGreaterThan(1.5);
    // The change is the median pairwise ratio (most pairs compare a mode with itself), not the jump of the medians.
    expect(row?.change?.ratio).toBeLessThan(1.05);
    expect(row?.status).toBe('inconclusive');
    expect(compareReports(a, b, opts).regressions).toHaveLength(0);
  });

  it('an informational ratio never gates, and is flagged when it regresses against its own history', () => {
    const worse = syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(12, 1.02 * 1.1, 0.01, 2) }]);
    const result = compareReports(informational(base, 'pkg:op:a'), informational(worse, 'pkg:op:a'), opts);
    expect(result.regressions).toHaveLength(0);
    expect(result.informationalRegressions.map((r) => `${r.name} ${r.metric}`)).toEqual(['pkg:op:a checks ratio']);
    expect(result.rows.every((r) => !r.gating && r.informational)).toBe(true);
    // A pair that stopped gating is compared with its own gated history the same way.
    expect(compareReports(base, informational(worse, 'pkg:op:a'), opts).informationalRegressions).toHaveLength(1);
  });

  it("the host pool copy cycle's ratio does not gate across models", () => {
    const copy = 'host-pool:kv-copy:alloc+copy+free fresh 1×1';
    const asCopy = (r: BenchReport, kvBytesPerToken: number): BenchReport => ({
      ...r,
      settings: { ...r.settings, kvModel: { name: kvBytesPerToken === 12_288 ? 'qwen2.5-0.5b' : 'llama-3.2-1b', kvBytesPerToken } },
      benches: r.benches.map((b) => ({ ...b, package: 'host-pool', op: 'kv-copy' })),
    });
    const a = asCopy(syntheticReport([{ name: copy, rounds: syntheticRounds(12, 1.0, 0.01, 1) }]), 12_288);
    const worse = syntheticReport([{ name: copy, rounds: syntheticRounds(12, 1.1, 0.01, 2) }]);
    expect(compareReports(a, asCopy(worse, 12_288), opts).regressions.map((r) => r.metric)).toContain('checks ratio');
    const across = compareReports(a, asCopy(worse, 32_768), opts);
    expect(across.ratiosNote).toMatch(/copy cycle model qwen2\.5-0\.5b \(12288 B\/token\) vs llama-3\.2-1b/);
    expect(across.regressions.map((r) => r.metric)).not.toContain('checks ratio');
  });

  it('verdict agreement lists the cases whose verdicts differ between two runs', () => {
    const a = syntheticReport([
      { name: 'pkg:op:a', rounds: syntheticRounds(12, 1.0, 0.01, 1) },
      { name: 'pkg:op:b', rounds: syntheticRounds(12, 1.2, 0.01, 2) },
      { name: 'pkg:op:c', rounds: syntheticRounds(12, 1.0, 0.01, 3) },
    ]);
    const b = syntheticReport([
      { name: 'pkg:op:a', rounds: syntheticRounds(12, 1.0, 0.01, 4) },
      { name: 'pkg:op:b', rounds: syntheticRounds(12, 1.03, 0.02, 5) },
      { name: 'pkg:op:d', rounds: syntheticRounds(12, 1.0, 0.01, 6) },
    ]);
    const agreement = verdictAgreement(a, b);
    expect(agreement.agree).toBe(1);
    expect(agreement.differ.map((d) => [d.name, d.first.verdict, d.second.verdict, d.why])).toEqual([['pkg:op:b', 'fail', 'inconclusive', 'ratio moved']]);
    expect(agreement.unpaired).toEqual(['pkg:op:c', 'pkg:op:d']);
  });

  it('says why two verdicts differ: intervals apart, one holding the margin, or neither', () => {
    // Apart: the ratio moved (a pass against a fail always is).
    expect(verdictDifference({ ciLow: 1.0, ciHigh: 1.02 }, { ciLow: 1.031, ciHigh: 1.05 }, 0.03)).toBe('ratio moved');
    expect(verdictDifference({ ciLow: 1.031, ciHigh: 1.05 }, { ciLow: 1.0, ciHigh: 1.02 }, 0.03)).toBe('ratio moved');
    // Records 37 and 38 of the full run: extend of 4096 requests at page 64, pass then undecided.
    expect(verdictDifference({ ciLow: 1.021, ciHigh: 1.029 }, { ciLow: 1.022, ciHigh: 1.031 }, 0.03)).toBe('at the margin');
    expect(verdictDifference({ ciLow: 1.022, ciHigh: 1.031 }, { ciLow: 1.021, ciHigh: 1.029 }, 0.03)).toBe('at the margin');
    // Records 36 and 37: the fresh copy cycle at page 1, undecided on a noisier machine, then a pass.
    expect(verdictDifference({ ciLow: 0.974, ciHigh: 1.048 }, { ciLow: 0.984, ciHigh: 1.01 }, 0.03)).toBe('wider spread');
    // Twice as wide is still the margin's: the long mix at page 1 (records 36 and 37).
    expect(verdictDifference({ ciLow: 1.023, ciHigh: 1.027 }, { ciLow: 1.026, ciHigh: 1.033 }, 0.03)).toBe('at the margin');
    // Overlapping, neither holding 1.03: one run had too few rounds for the verdict the other reached.
    expect(verdictDifference({ ciLow: 0.99, ciHigh: 1.01 }, { ciLow: 0.98, ciHigh: 1.02 }, 0.03)).toBe('too few rounds');
    // The margin is the report's.
    expect(verdictDifference({ ciLow: 1.021, ciHigh: 1.029 }, { ciLow: 1.022, ciHigh: 1.031 }, 0.05)).toBe('too few rounds');
  });

  it('classifies intervals against the margin, never calling a sub-margin change slower or faster', () => {
    expect(classifyChange({ ratio: 1.1, ciLow: 1.06, ciHigh: 1.14 }, 0.05)).toBe('regression');
    expect(classifyChange({ ratio: 1.04, ciLow: 1.02, ciHigh: 1.045 }, 0.05)).toBe('unchanged');
    expect(classifyChange({ ratio: 1.0, ciLow: 0.98, ciHigh: 1.02 }, 0.05)).toBe('unchanged');
    expect(classifyChange({ ratio: 0.9, ciLow: 0.88, ciHigh: 0.92 }, 0.05)).toBe('improvement');
    // The interval bench:compare once called "slower" on identical code: it reaches past the margin without clearing it.
    expect(classifyChange({ ratio: 1.796, ciLow: 1.035, ciHigh: 1.957 }, 0.05)).toBe('inconclusive');
    expect(classifyChange({ ratio: 1.0, ciLow: 0.94, ciHigh: 1.02 }, 0.05)).toBe('inconclusive');
  });
});
