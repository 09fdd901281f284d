/**
 * The `bench/1` JSON document `pnpm bench --json FILE` writes (documented in bench/README.md):
 * machine context, settings, every ratio as `{ name, ratio, ciLow, ciHigh, verdict, rounds }`
 * under `ratios`, and every bench with its per-round samples under `benches`, which is what
 * `pnpm bench:compare` tests.
 *
 * @packageDocumentation
 */
import { createRequire } from 'node:module';
import { cpus, loadavg, platform, release, arch } from 'node:os';
import { median } from '../stats/robust-center.js';
import { verdictPlan, type Verdict } from '../stats/verdict.js';
import { judgeCase, kCpuShareMin, kDisturbedRetriesMax, type AbOutcome } from '../harness/ab-rounds.js';
import type { ArgValue, VariantId } from '../harness/bench-pair.js';
import { kBatchSamples, kBatchThresholdNs, kWarmupMsMax, type RunSettings } from '../harness/measure-settings.js';
import type { Pinning } from '../harness/pinning.js';
import { childMallocTunables } from '../harness/child-env.js';
import type { GpuTiming } from '../gpu-kernels/gpu-timer.js';

/** The schema tag; a reader refuses any other. */
export const kBenchSchema = 'bench/1';
/** A bench whose median is within this factor of the empty function's measures nothing (STYLE 20). */
export const kEmptyFactorMin = 1.4;

/** What a ratio divides: checks-on / checks-off (absent: the same), or a GPU kernel / its CPU reference. */
export type RatioMetric = 'checks-on / checks-off' | 'gpu / cpu';

/** One tracked metric: a checks-on / checks-off ratio with its interval and verdict. */
export interface RatioEntry {
  /** The case address, e.g. `allocator-core:alloc-extend:allocExtend+free 64 8×64`. */
  readonly name: string;
  /** Median of the per-round ratios (unitless; 1.02 = the checks cost 2%). */
  readonly ratio: number;
  readonly ciLow: number;
  readonly ciHigh: number;
  /** For a `gpu / cpu` ratio the same rule reads: pass = the kernel is no slower than the CPU reference + margin. */
  readonly verdict: Verdict;
  readonly rounds: number;
  /** Absent on checks ratios (the original schema); `gpu / cpu` on the GPU benches' comparisons. */
  readonly metric?: RatioMetric;
  /**
   * True when the ratio never gates — the GPU / CPU comparisons, and checks ratios of pairs
   * registered `gated: false` (the host pool's bookkeeping cycle): left out of `summary`'s
   * verdict counts and the exit status, tracked by the history and `bench:compare`.
   */
  readonly informational?: boolean;
}

export interface VariantEntry {
  readonly checks: boolean;
  readonly baseline: boolean;
  /** Median over rounds of the per-round medians (ns per call). */
  readonly medianNs: number;
  /** The round's median over its slices of each slice's median (ns per call), in round order. */
  readonly perRoundNs: readonly number[];
  /** The empty function's median in the same child, per round (ns per call). */
  readonly emptyPerRoundNs: readonly number[];
  /** Median over rounds of `perRoundNs / emptyPerRoundNs`. */
  readonly emptyFactor: number;
  /** `emptyFactor < kEmptyFactorMin`: the timed function does (almost) nothing. */
  readonly measuresNothing: boolean;
}

export interface BenchEntry {
  readonly name: string;
  readonly package: string;
  readonly op: string;
  /** Path under bench/src. */
  readonly file: string;
  readonly args: Readonly<Record<string, ArgValue>>;
  /** The variant the ratio divides by. */
  readonly baseline: VariantId;
  readonly rounds: number;
  readonly variants: Readonly<Record<VariantId, VariantEntry>>;
  /**
   * Per round: which variant's child started first, checks-on median / checks-off median, and the
   * lowest CPU share of the round's kept slices (below 0.9: another process shared the core).
   */
  readonly perRound: readonly {
    readonly round: number;
    readonly first: VariantId;
    readonly ratio: number;
    readonly cpuShareMin: number;
    /** Each variant's warm-up (ms; run-child.ts). Absent for GPU benches and in reports before 2026-11-30. */
    readonly warmupMs?: Readonly<Record<VariantId, number>>;
  }[];
  /** GPU benches only: how each slice was timed (`perRoundNs` are then GPU times per kernel call). */
  readonly gpuTiming?: GpuTiming;
  /** GPU benches only: kernel calls per timed submission. */
  readonly repsPerSlice?: number;
}

/** A variant of a GPU-vs-CPU comparison (the fields of {@link VariantEntry} without `checks`). */
export type TimedVariantEntry = Omit<VariantEntry, 'checks'>;

/** A GPU kernel against its CPU reference (`gpu.comparisons[]`); its ratio is informational. */
export interface GpuComparisonEntry {
  readonly name: string;
  readonly package: string;
  readonly op: string;
  readonly file: string;
  readonly args: Readonly<Record<string, ArgValue>>;
  readonly baseline: 'cpu';
  readonly rounds: number;
  /** `cpu`: allocator-core's planner, mitata slices; `gpu`: the kernel, timed as `gpuTiming` says. Empty references: a no-op function, an empty pass. */
  readonly variants: { readonly cpu: TimedVariantEntry; readonly gpu: TimedVariantEntry };
  /** Per round: which variant took the first slice, gpu / cpu, the lowest process CPU share of its slices. */
  readonly perRound: readonly { readonly round: number; readonly first: 'cpu' | 'gpu'; readonly ratio: number; readonly cpuShareMin: number }[];
  readonly gpuTiming: GpuTiming;
  readonly repsPerSlice: number;
}

/** The adapter the GPU benches ran on (`machine.gpu`). */
export interface GpuMachineContext {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  readonly isFallbackAdapter: boolean;
  /** A software adapter (lavapipe/llvmpipe, SwiftShader, WARP): its "GPU" times are CPU times. */
  readonly cpuEmulated: boolean;
  /** The adapter offers 'timestamp-query'. */
  readonly timestampQuery: boolean;
  /** Dawn's timestamp quantization (the benches turn it off). */
  readonly timestampQuantization: boolean;
  /** One line for readers: CPU-emulated or a hardware GPU, and how kernels were timed. */
  readonly note: string;
}

/** How the GPU group ran (`gpu`, present when `pnpm bench --gpu` ran GPU benches). */
export interface GpuRunSection {
  /** `timestamp-query`: each slice is the median kernel call's GPU time; `wall-clock`: a submission's wall time over its calls. */
  readonly timing: GpuTiming;
  readonly repsPerSliceMin: number;
  readonly repsPerSubmitMax: number;
  readonly rounds: number;
  readonly stopReason: AbOutcome['stopReason'];
  readonly elapsedSeconds: number;
  readonly comparisons: readonly GpuComparisonEntry[];
}

export interface MachineContext {
  readonly cpu: { readonly model: string; readonly cores: number; readonly speedMHz: number };
  readonly os: { readonly platform: string; readonly release: string; readonly arch: string };
  readonly node: string;
  readonly v8: string;
  readonly mitata: string;
  readonly taskset: { readonly used: boolean; readonly cpu: number | null; readonly note: string };
  /** The children's `GLIBC_TUNABLES` (see harness/child-env.ts). Absent in reports before 2026-11-30, whose children ran glibc's default malloc. */
  readonly mallocTunables?: string;
  /** 1, 5 and 15 minute load averages when the run started and ended: how busy the shared machine was. */
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
  /** The WebGPU adapter, when GPU benches ran. */
  readonly gpu?: GpuMachineContext;
}

/**
 * What an A/A run says of one case, whose two arms ran the same code: `ok` passes with an
 * interval that holds 1; `biased` passes but its interval excludes 1 (an order effect of the
 * harness, or one case in twenty by chance); `undecided` cannot resolve the margin in the rounds
 * it had; `false-fail` reports a cost where there is none.
 */
export type AaOutcome = 'ok' | 'biased' | 'undecided' | 'false-fail';

/** The A/A calibration's per-case outcomes (present when `aa`). */
export interface AaCalibration {
  readonly ok: number;
  readonly biased: readonly string[];
  readonly undecided: readonly string[];
  readonly falseFail: readonly string[];
}

/** The model whose KV bytes the host pool's copy cycle copies (`--model`, `--kv-bytes-per-token`). */
export interface KvModelSetting {
  /** A `--model` name, or `custom` for `--kv-bytes-per-token`. */
  readonly name: string;
  readonly kvBytesPerToken: number;
}

export interface BenchReport {
  readonly kvfuzz: typeof kBenchSchema;
  readonly createdAt: string;
  readonly mode: 'quick' | 'full';
  /** A/A calibration run: both variants ran with checks off; the ratios show the harness's own bias. */
  readonly aa: boolean;
  readonly filter: string | null;
  readonly settings: {
    readonly margin: number;
    /** Two-sided confidence of the first look's interval (`lookConfidences` has each look's). */
    readonly confidence: number;
    /** Rounds at which verdicts were read. Absent in reports before order-statistic intervals. */
    readonly looks?: readonly number[];
    /** Two-sided confidence of each look's interval, in the order of `looks`: the family's 95% spent over them. Absent in reports before 2026-12-05's third look, whose looks shared it equally. */
    readonly lookConfidences?: readonly number[];
    /** A round's ratio: `slice-pairs`, the median of its slice pairs' ratios. Absent in earlier reports: the ratio of the two variants' medians over the round's slices. */
    readonly roundRatio?: 'slice-pairs';
    /** How intervals are made: `order-statistic` (the median's distribution-free interval). Absent in earlier reports, whose intervals were a percentile bootstrap. */
    readonly interval?: 'order-statistic';
    /** Seeds the schedule. */
    readonly seed: number;
    /** How rounds are combined: the median of the per-round ratios. */
    readonly center: 'median';
    /** What one pair of children held: one case (`case`, always now). Absent in reports before 2026-11-29, which ran `file`. */
    readonly isolation?: 'case' | 'file';
    /** How the children loaded the code: one bundle (`bundle`, always now). `modules` in reports of the removed `--layout modules`. */
    readonly layout?: 'bundle' | 'modules';
    /** The host pool copy cycle's model. Absent in reports before the copy cycle. */
    readonly kvModel?: KvModelSetting;
    readonly roundsMin: number;
    readonly roundsMax: number;
    readonly budgetSeconds: number;
    readonly warmupMs: number;
    readonly sliceMs: number;
    readonly slices: number;
    readonly batchSamples: number;
    readonly batchThresholdNs: number;
    readonly emptyFactorMin: number;
  };
  readonly machine: MachineContext;
  /** Rounds run (the most any bench ran). */
  readonly rounds: number;
  readonly children: number;
  /** Slice pairs timed again because a child shared its core with another process. */
  readonly retries: number;
  readonly stopReason: AbOutcome['stopReason'];
  readonly elapsedSeconds: number;
  /** Over the gating ratios (`benches` counts them); `informational` counts the ratios that never gate. */
  readonly summary: { readonly benches: number; readonly pass: number; readonly fail: number; readonly inconclusive: number; readonly measuringNothing: number; readonly informational?: number };
  readonly ratios: readonly RatioEntry[];
  readonly benches: readonly BenchEntry[];
  readonly warnings: readonly string[];
  /** The A/A calibration's outcome per case; only when `aa`. */
  readonly calibration?: AaCalibration;
  /** The GPU group's run and its GPU-vs-CPU comparisons (`pnpm bench --gpu`). */
  readonly gpu?: GpuRunSection;
}

/** mitata's version, from its package.json. */
export function mitataVersion(): string {
  try {
    return (createRequire(import.meta.url)('mitata/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The machine as the report records it; `loadStart` is the load average taken when the run began. */
export function machineContext(pinning: Pinning, loadStart: readonly number[]): MachineContext {
  const cpu = cpus()[0];
  return {
    cpu: { model: cpu?.model.trim() ?? 'unknown', cores: cpus().length, speedMHz: cpu?.speed ?? 0 },
    os: { platform: platform(), release: release(), arch: arch() },
    node: process.version,
    v8: process.versions.v8,
    mitata: mitataVersion(),
    taskset: { used: pinning.used, cpu: pinning.cpu, note: pinning.note },
    mallocTunables: childMallocTunables(),
    loadAverage: { start: loadStart.map(round2), end: loadavg().map(round2) },
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** @internal A variant's entry from its per-round medians and empty references (ns). */
export function variantEntry(perRoundNs: number[], emptyPerRoundNs: number[], checks: boolean): VariantEntry {
  const emptyFactor = median(perRoundNs.map((ns, i) => ns / Math.max(emptyPerRoundNs[i] as number, Number.MIN_VALUE)));
  return {
    checks,
    baseline: !checks,
    medianNs: median(perRoundNs),
    perRoundNs,
    emptyPerRoundNs,
    emptyFactor,
    measuresNothing: emptyFactor < kEmptyFactorMin,
  };
}

export interface ReportInput {
  readonly outcome: AbOutcome;
  readonly settings: RunSettings;
  readonly filter: string | null;
  readonly aa: boolean;
  readonly margin: number;
  readonly seed: number;
  readonly kvModel: KvModelSetting;
  readonly machine: MachineContext;
  readonly createdAt: Date;
}

/** What an A/A run's ratio says of the harness (see {@link AaOutcome}). */
export function aaOutcome(r: Pick<RatioEntry, 'ciLow' | 'ciHigh' | 'verdict'>): AaOutcome {
  if (r.verdict === 'fail') return 'false-fail';
  if (r.verdict === 'inconclusive') return 'undecided';
  return r.ciLow > 1 || r.ciHigh < 1 ? 'biased' : 'ok';
}

/** The A/A outcomes of every checks ratio (GPU / CPU comparisons left out: their arms differ even in A/A). */
export function aaCalibration(ratios: readonly RatioEntry[]): AaCalibration {
  const checks = ratios.filter((r) => r.metric === undefined);
  const named = (o: AaOutcome): string[] => checks.filter((r) => aaOutcome(r) === o).map((r) => r.name);
  return { ok: named('ok').length, biased: named('biased'), undecided: named('undecided'), falseFail: named('false-fail') };
}

/** The summary's counts over `ratios` (verdicts of the gating ones) and `benches` (measuring nothing, gating ones). */
export function summarize(ratios: readonly RatioEntry[], benches: readonly BenchEntry[]): BenchReport['summary'] {
  const gating = ratios.filter((r) => r.informational !== true);
  const gatingNames = new Set(gating.map((r) => r.name));
  const count = (v: Verdict): number => gating.filter((r) => r.verdict === v).length;
  return {
    benches: gating.length,
    pass: count('pass'),
    fail: count('fail'),
    inconclusive: count('inconclusive'),
    measuringNothing: benches.filter((b) => gatingNames.has(b.name) && (b.variants['checks-off'].measuresNothing || b.variants['checks-on'].measuresNothing)).length,
    informational: ratios.length - gating.length,
  };
}

/** Builds the `bench/1` document from the rounds. */
export function buildReport(input: ReportInput): BenchReport {
  const { outcome, settings, margin, seed } = input;
  const plan = verdictPlan(settings.rounds, margin);
  const ratios: RatioEntry[] = [];
  const benches: BenchEntry[] = [];
  const warnings: string[] = [];
  for (const { case: c, rounds } of outcome.cases) {
    if (rounds.length === 0) {
      warnings.push(`${c.name}: no rounds ran`);
      continue;
    }
    const judged = judgeCase(rounds, plan);
    ratios.push({ name: c.name, ratio: judged.ratio, ciLow: judged.ciLow, ciHigh: judged.ciHigh, verdict: judged.verdict, rounds: judged.rounds, ...(c.pair.gated ? {} : { informational: true }) });
    const off = variantEntry(rounds.map((r) => r.offNs), rounds.map((r) => r.offEmptyNs), false);
    const on = variantEntry(rounds.map((r) => r.onNs), rounds.map((r) => r.onEmptyNs), true);
    benches.push({
      name: c.name,
      package: c.package,
      op: c.op,
      file: c.file,
      args: c.args,
      baseline: c.pair.baseline,
      rounds: rounds.length,
      variants: { 'checks-off': off, 'checks-on': on },
      perRound: rounds.map((r) => ({
        round: r.round,
        first: r.first,
        ratio: r.ratio,
        cpuShareMin: Math.round(r.cpuShareMin * 1000) / 1000,
        warmupMs: { 'checks-off': Math.round(r.offWarmup.ms), 'checks-on': Math.round(r.onWarmup.ms) },
      })),
    });
    for (const [id, v] of [['checks-off', off], ['checks-on', on]] as const) {
      if (v.measuresNothing) warnings.push(`${c.name} [${id}]: median ${v.medianNs.toFixed(2)} ns is within ${kEmptyFactorMin}× of the empty function (${v.emptyFactor.toFixed(2)}×): it measures nothing`);
    }
  }
  const unoptimized = outcome.cases.reduce((n, c) => n + c.rounds.reduce((m, r) => m + (r.offWarmup.optimized === false ? 1 : 0) + (r.onWarmup.optimized === false ? 1 : 0), 0), 0);
  if (unoptimized > 0) warnings.push(`${unoptimized} children timed a case whose function V8 had not compiled with TurboFan after ${kWarmupMsMax / 1000}s of warm-up`);
  const disturbed = outcome.cases.reduce((n, c) => n + c.rounds.filter((r) => r.cpuShareMin < kCpuShareMin).length, 0);
  if (disturbed > 0) warnings.push(`${disturbed} case-rounds kept a slice during which a child shared its core, after ${kDisturbedRetriesMax} retries (cpuShareMin < ${kCpuShareMin})`);
  if (outcome.stopReason === 'budget') warnings.push(`stopped at the time budget (${settings.rounds.budgetSeconds}s) after ${outcome.roundsRun} rounds`);
  if (!input.machine.taskset.used) warnings.push(input.machine.taskset.note);
  if (input.aa) warnings.push('A/A calibration: both variants ran with checks off, so every ratio measures the harness, not the checks');
  const unsupported = ratios.filter((r) => r.rounds < plan.roundsForVerdict).length;
  if (unsupported > 0) warnings.push(`${unsupported} ${unsupported === 1 ? 'case has' : 'cases have'} fewer than the ${plan.roundsForVerdict} rounds a verdict at ${formatConfidence(plan.confidences[0] as number)} needs: inconclusive`);
  return {
    kvfuzz: kBenchSchema,
    createdAt: input.createdAt.toISOString(),
    mode: settings.mode,
    aa: input.aa,
    filter: input.filter,
    settings: {
      margin,
      confidence: plan.confidences[0] as number,
      looks: plan.looks,
      lookConfidences: plan.confidences,
      roundRatio: 'slice-pairs',
      interval: 'order-statistic',
      seed,
      center: 'median',
      isolation: 'case',
      layout: 'bundle',
      kvModel: input.kvModel,
      roundsMin: settings.rounds.roundsMin,
      roundsMax: settings.rounds.roundsMax,
      budgetSeconds: settings.rounds.budgetSeconds,
      warmupMs: settings.measure.warmupMs,
      sliceMs: settings.measure.sliceMs,
      slices: settings.measure.slices,
      batchSamples: kBatchSamples,
      batchThresholdNs: kBatchThresholdNs,
      emptyFactorMin: kEmptyFactorMin,
    },
    machine: input.machine,
    rounds: outcome.roundsRun,
    children: outcome.children,
    retries: outcome.retries,
    stopReason: outcome.stopReason,
    elapsedSeconds: Math.round(outcome.elapsedSeconds * 10) / 10,
    summary: summarize(ratios, benches),
    ratios,
    benches,
    warnings,
    ...(input.aa ? { calibration: aaCalibration(ratios) } : {}),
  };
}

/** A confidence as the tables print it: `95%`, `97.5%`, `98.75%`. */
export function formatConfidence(confidence: number): string {
  const pct = Math.round(confidence * 10_000) / 100;
  return `${pct}%`;
}

/** A report's looks and their confidences for a line of text; one confidence when it has no looks. */
export function describeReportLooks(report: BenchReport): string {
  const { looks, lookConfidences, confidence } = report.settings;
  if (looks === undefined) return `${formatConfidence(confidence)} CI`;
  return describeLooks(looks, lookConfidences ?? looks.map(() => confidence));
}

/** A plan's looks for a line of text: `10 rounds at 97.5%, 20 at 99.17%, 40 at 99.17%, 80 at 99.17%`. */
export function describeLooks(looks: readonly number[], confidences: readonly number[]): string {
  return looks.map((look, i) => `${look}${i === 0 ? ' rounds' : ''} at ${formatConfidence(confidences[i] as number)}`).join(', ');
}

/** A report file that is not a readable `bench/1` document. */
export class ReportFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReportFormatError';
  }
}

function positiveNumbers(value: unknown, where: string): number[] {
  if (!Array.isArray(value) || value.length === 0) throw new ReportFormatError(`${where} is not a non-empty array`);
  value.forEach((x, i) => {
    if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x)) throw new ReportFormatError(`${where}[${i}] is ${JSON.stringify(x)}, not a positive number`);
  });
  return value as number[];
}

/**
 * Checks that a parsed document is a `bench/1` report with usable per-round samples.
 *
 * @throws ReportFormatError naming the first field that is wrong.
 */
export function parseReport(doc: unknown, label: string): BenchReport {
  const d = doc as Partial<BenchReport> | null;
  if (typeof d !== 'object' || d === null) throw new ReportFormatError(`${label}: not a JSON object`);
  if (d.kvfuzz !== kBenchSchema) throw new ReportFormatError(`${label}: kvfuzz is ${JSON.stringify(d.kvfuzz)}, not "${kBenchSchema}"`);
  if (!Array.isArray(d.benches)) throw new ReportFormatError(`${label}: benches is not an array`);
  if (!Array.isArray(d.ratios)) throw new ReportFormatError(`${label}: ratios is not an array`);
  if (typeof d.machine !== 'object' || d.machine === null) throw new ReportFormatError(`${label}: machine is missing`);
  d.benches.forEach((b, i) => {
    const where = `${label}: benches[${i}]`;
    if (typeof b?.name !== 'string') throw new ReportFormatError(`${where}.name is not a string`);
    positiveNumbers(Array.isArray(b.perRound) ? (b.perRound as unknown[]).map((r) => (r as { ratio?: unknown } | null)?.ratio) : undefined, `${where}.perRound[].ratio`);
    for (const v of ['checks-off', 'checks-on'] as const) positiveNumbers(b.variants?.[v]?.perRoundNs, `${where}.variants.${v}.perRoundNs`);
  });
  return d as BenchReport;
}
