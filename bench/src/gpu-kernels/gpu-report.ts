/**
 * Folds the GPU group's rounds into a `bench/1` report, additively: checked-vs-unchecked free
 * cases become ordinary `benches[]` entries (checks-off = the unchecked kernel) with a gating
 * ratio in `ratios[]`; GPU-vs-CPU cases go to `gpu.comparisons[]`, and their ratios to `ratios[]`
 * with `metric: "gpu / cpu"` and `informational: true`, outside the summary and the exit status.
 * The adapter lands in `machine.gpu`.
 *
 * @packageDocumentation
 */
import type { VariantId } from '../harness/bench-pair.js';
import { kEmptyFactorMin, summarize, variantEntry, type BenchEntry, type BenchReport, type GpuComparisonEntry, type GpuMachineContext, type RatioEntry, type TimedVariantEntry } from '../report/bench-report.js';
import { judgeRatios, type VerdictPlan } from '../stats/verdict.js';
import { kRepsPerSliceMin, type GpuCaseRounds, type GpuOutcome } from './gpu-rounds.js';
import { kRepsPerSubmitMax } from './gpu-timer.js';

function timedVariant(perRoundNs: number[], emptyPerRoundNs: number[], baseline: boolean): TimedVariantEntry {
  const { checks: _checks, ...rest } = variantEntry(perRoundNs, emptyPerRoundNs, !baseline);
  return rest;
}

/** `machine.gpu`: the adapter, and one line saying what its times mean. */
export function gpuMachineContext(outcome: GpuOutcome): GpuMachineContext {
  const d = outcome.device;
  const how = outcome.timing === 'timestamp-query' ? `timestamp queries (quantization ${d.timestampQuantization ? 'on' : 'off'})` : 'wall clock over many dispatches per submission';
  const note = d.cpuEmulated
    ? `CPU-emulated adapter (${d.description || d.device || d.vendor}): kernel times are CPU times of a software driver and say nothing about a GPU; timed with ${how}`
    : `hardware adapter ${[d.vendor, d.architecture, d.description].filter((s) => s !== '').join(' / ')}; timed with ${how}`;
  return {
    vendor: d.vendor,
    architecture: d.architecture,
    device: d.device,
    description: d.description,
    isFallbackAdapter: d.isFallbackAdapter,
    cpuEmulated: d.cpuEmulated,
    timestampQuery: d.timestampQuery,
    timestampQuantization: d.timestampQuantization,
    note,
  };
}

/** What both entry kinds say of a case: its address, its rounds, and how it was timed. */
function caseFields(c: GpuCaseRounds, timing: GpuOutcome['timing']) {
  return { name: c.case.name, package: c.case.package, op: c.case.op, file: c.case.file, args: c.case.args, rounds: c.rounds.length, gpuTiming: timing, repsPerSlice: c.repsPerSlice };
}

function checksEntry(c: GpuCaseRounds, timing: GpuOutcome['timing']): BenchEntry {
  const rounds = c.rounds;
  return {
    ...caseFields(c, timing),
    baseline: 'checks-off',
    variants: {
      'checks-off': variantEntry(rounds.map((r) => r.baselineNs), rounds.map((r) => r.baselineEmptyNs), false),
      'checks-on': variantEntry(rounds.map((r) => r.comparedNs), rounds.map((r) => r.comparedEmptyNs), true),
    },
    perRound: rounds.map((r) => ({ round: r.round, first: r.first as VariantId, ratio: r.ratio, cpuShareMin: Math.round(r.cpuShareMin * 1000) / 1000 })),
  };
}

function comparisonEntry(c: GpuCaseRounds, timing: GpuOutcome['timing']): GpuComparisonEntry {
  const rounds = c.rounds;
  return {
    ...caseFields(c, timing),
    baseline: 'cpu',
    variants: {
      cpu: timedVariant(rounds.map((r) => r.baselineNs), rounds.map((r) => r.baselineEmptyNs), true),
      gpu: timedVariant(rounds.map((r) => r.comparedNs), rounds.map((r) => r.comparedEmptyNs), false),
    },
    perRound: rounds.map((r) => ({ round: r.round, first: r.first === 'gpu' ? 'gpu' : 'cpu', ratio: r.ratio, cpuShareMin: Math.round(r.cpuShareMin * 1000) / 1000 })),
  };
}

/**
 * The report with the GPU group added. Summary counts are recomputed over the gating ratios; the
 * report's `rounds` becomes the larger of the two groups', `elapsedSeconds` their sum, and a run
 * with no CPU benches takes the GPU group's `stopReason`.
 */
export function addGpuSection(report: BenchReport, outcome: GpuOutcome, plan: VerdictPlan): BenchReport {
  const benches: BenchEntry[] = [...report.benches];
  const ratios: RatioEntry[] = [...report.ratios];
  const comparisons: GpuComparisonEntry[] = [];
  const warnings: string[] = [...report.warnings];
  for (const c of outcome.cases) {
    if (c.rounds.length === 0) {
      warnings.push(`${c.case.name}: no rounds ran`);
      continue;
    }
    const judged = judgeRatios(c.rounds.map((r) => r.ratio), plan);
    const interval = { ratio: judged.ratio, ciLow: judged.ciLow, ciHigh: judged.ciHigh, verdict: judged.verdict, rounds: judged.rounds };
    if (c.case.kind === 'checks') {
      const entry = checksEntry(c, outcome.timing);
      benches.push(entry);
      ratios.push({ name: c.case.name, ...interval });
      for (const [id, v] of Object.entries(entry.variants)) {
        if (v.measuresNothing) warnings.push(`${c.case.name} [${id}]: median ${v.medianNs.toFixed(0)} ns is within ${kEmptyFactorMin}× of an empty pass (${v.emptyFactor.toFixed(2)}×): it measures dispatch overhead, not the kernel`);
      }
    } else {
      const entry = comparisonEntry(c, outcome.timing);
      comparisons.push(entry);
      ratios.push({ name: c.case.name, ...interval, metric: 'gpu / cpu', informational: true });
      if (entry.variants.gpu.measuresNothing) {
        warnings.push(`${c.case.name} [gpu]: within ${kEmptyFactorMin}× of an empty pass (${entry.variants.gpu.emptyFactor.toFixed(2)}×): the kernel time is dispatch overhead (informational)`);
      }
    }
  }
  const machineGpu = gpuMachineContext(outcome);
  if (machineGpu.cpuEmulated) warnings.push(`GPU benches ran on a ${machineGpu.note}`);
  if (outcome.stopReason === 'budget') warnings.push(`GPU benches stopped at the time budget after ${outcome.roundsRun} rounds`);
  const hadCpuBenches = report.benches.length > 0;
  return {
    ...report,
    machine: { ...report.machine, gpu: machineGpu },
    rounds: Math.max(report.rounds, outcome.roundsRun),
    stopReason: hadCpuBenches ? report.stopReason : outcome.stopReason,
    elapsedSeconds: Math.round((report.elapsedSeconds + outcome.elapsedSeconds) * 10) / 10,
    summary: summarize(ratios, benches),
    ratios,
    benches,
    warnings,
    gpu: {
      timing: outcome.timing,
      repsPerSliceMin: kRepsPerSliceMin,
      repsPerSubmitMax: kRepsPerSubmitMax,
      rounds: outcome.roundsRun,
      stopReason: outcome.stopReason,
      elapsedSeconds: Math.round(outcome.elapsedSeconds * 10) / 10,
      comparisons,
    },
  };
}
