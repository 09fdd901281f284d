import { planDecode, planExtend } from '@kvfuzz/allocator-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunSettings } from '../harness/measure-settings.js';
import { verdictPlan } from '../stats/verdict.js';
import { compareReports } from '../report/compare-reports.js';
import { parseReport } from '../report/bench-report.js';
import { bencherMetricFormat, githubActionBenchmark } from '../report/side-files.js';
import { syntheticReport, syntheticRounds } from '../test-support/synthetic.js';
import { drawDecode, drawExtend, gpuCases } from './gpu-cases.js';
import { addGpuSection } from './gpu-report.js';
import { runGpuRounds, type GpuOutcome } from './gpu-rounds.js';

/** A tiny run: one slice per variant of a couple of milliseconds, two rounds. */
const kTinySettings: RunSettings = { mode: 'quick', measure: { warmupMs: 2, sliceMs: 2, slices: 1 }, rounds: { roundsMin: 2, roundsMax: 2, budgetSeconds: 60 } };
const kJudging = { margin: 0.03, seed: 7 };

function tinyCases(): ReturnType<typeof gpuCases> {
  const names = ['gpu-kernels:plan-decode:planDecode gpu/cpu 1 8×64', 'gpu-kernels:free-batch:freeBatch 16384'];
  return gpuCases(true).filter((c) => names.includes(c.name));
}

describe('bench:gpu-kernels,cases', () => {
  it('draws batches whose free lists are exactly long enough for the CPU reference', () => {
    for (const batch of [1, 64, 4096]) {
      for (const g of [{ dcp: 1, kernelPage: 1 }, { dcp: 8, kernelPage: 64 }]) {
        const ps = g.dcp * g.kernelPage;
        const extend = drawExtend({ ...g, batch });
        expect(planExtend(extend.batch, ps, extend.freePages)?.pageCount).toBe(extend.freePages.length);
        const decode = drawDecode({ ...g, batch });
        expect(planDecode(decode.batch, ps, decode.freePages)?.pageCount).toBe(decode.freePages.length);
      }
    }
  });

  it('has unique addresses, quick points among the full ones, and both kinds', () => {
    const full = gpuCases(false).map((c) => c.name);
    expect(new Set(full).size).toBe(full.length);
    for (const c of gpuCases(true)) expect(full).toContain(c.name);
    expect(new Set(gpuCases(true).map((c) => c.kind))).toEqual(new Set(['checks', 'gpu-vs-cpu']));
  });
});

describe('bench:gpu-kernels,rounds', () => {
  let outcome: GpuOutcome;
  beforeAll(async () => {
    // Under CI a missing adapter fails here with acquireDevice's NoAdapterError, never a skip.
    outcome = await runGpuRounds(tinyCases(), { settings: kTinySettings, aa: false, ...kJudging, seed: 1 });
  });

  it('runs a tiny config on this machine\'s adapter and gives well-formed rounds', () => {
    expect(outcome.roundsRun).toBe(2);
    expect(['timestamp-query', 'wall-clock']).toContain(outcome.timing);
    expect(outcome.device.description.length + outcome.device.vendor.length).toBeGreaterThan(0);
    expect(outcome.cases.map((c) => c.rounds.length)).toEqual([2, 2]);
    for (const c of outcome.cases) {
      expect(c.repsPerSlice).toBeGreaterThanOrEqual(5);
      for (const r of c.rounds) {
        for (const ns of [r.baselineNs, r.comparedNs, r.ratio]) expect(ns > 0 && Number.isFinite(ns), `${c.case.name}: ${ns}`).toBe(true);
        expect(r.ratio).toBeCloseTo(r.comparedNs / r.baselineNs, 10);
        expect([c.case.baseline, c.case.compared]).toContain(r.first);
      }
    }
  });

  it('times by wall clock when told to, and A/A runs the baseline twice', async () => {
    const wall = await runGpuRounds(tinyCases().slice(1), { settings: kTinySettings, aa: true, forceWallClock: true, ...kJudging, seed: 2 });
    expect(wall.timing).toBe('wall-clock');
    expect(wall.cases[0]?.rounds.every((r) => r.ratio > 0)).toBe(true);
  });

  it('folds into a bench/1 report that the readers and side files accept', () => {
    const cpu = syntheticReport([{ name: 'pkg:op:a', rounds: syntheticRounds(6, 1.01, 0.01, 1) }]);
    const report = JSON.parse(JSON.stringify(addGpuSection(cpu, outcome, verdictPlan(kTinySettings.rounds, kJudging.margin)))) as unknown;
    const parsed = parseReport(report, 'gpu');
    expect(parsed.benches.map((b) => b.name)).toEqual(['pkg:op:a', 'gpu-kernels:free-batch:freeBatch 16384']);
    expect(parsed.benches[1]?.gpuTiming).toBe(outcome.timing);
    expect(parsed.gpu?.comparisons.map((c) => c.name)).toEqual(['gpu-kernels:plan-decode:planDecode gpu/cpu 1 8×64']);
    expect(parsed.machine.gpu?.cpuEmulated).toBe(outcome.device.cpuEmulated);
    const info = parsed.ratios.filter((r) => r.informational === true);
    expect(info.map((r) => [r.name, r.metric])).toEqual([['gpu-kernels:plan-decode:planDecode gpu/cpu 1 8×64', 'gpu / cpu']]);
    // The summary counts the two gating ratios (a CPU bench, the GPU free) and one informational; two rounds decide nothing.
    expect(parsed.summary).toMatchObject({ benches: 2, informational: 1 });
    expect(parsed.ratios.find((r) => r.name === 'gpu-kernels:free-batch:freeBatch 16384')?.verdict).toBe('inconclusive');
    expect(githubActionBenchmark(parsed).map((e) => e.name)).toContain('gpu-kernels:plan-decode:planDecode gpu/cpu 1 8×64 (gpu / cpu)');
    expect(Object.keys(bencherMetricFormat(parsed)['gpu-kernels:plan-decode:planDecode gpu/cpu 1 8×64'] ?? {})).toEqual(['gpu-cpu-ratio']);
    const compared = compareReports(parsed, parsed, { margin: 0.05, times: 'info' });
    expect(compared.rows.filter((r) => r.name === 'gpu-kernels:free-batch:freeBatch 16384').map((r) => r.metric)).toEqual(['checks ratio', 'time checks-off', 'time checks-on']);
  });
});
