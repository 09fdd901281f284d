/**
 * The two side files written next to the `bench/1` JSON, for trend tracking. Both carry only the
 * checks-on / checks-off ratios: they do not depend on the machine, so a history of them is
 * comparable across runners (absolute times are in the main JSON).
 *
 * @packageDocumentation
 */
import type { BenchReport } from './bench-report.js';

/** One entry of github-action-benchmark's `customSmallerIsBetter` tool. */
export interface GithubBenchmarkEntry {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
  readonly range?: string;
  readonly extra?: string;
}

/** Bencher Metric Format: benchmark name → measure slug → value with bounds. */
export type BencherMetricFormat = Record<string, Record<string, { readonly value: number; readonly lower_value?: number; readonly upper_value?: number }>>;

/** The Bencher measure every checks ratio is filed under. */
export const kBencherMeasure = 'checks-ratio';
/** The Bencher measure of the GPU benches' informational GPU / CPU ratios. */
export const kBencherGpuMeasure = 'gpu-cpu-ratio';
/** Digits kept in the side files: a ratio to 1e-6 is far below the noise. */
const kDigits = 6;

function fixed(x: number): number {
  return Number(x.toFixed(kDigits));
}

/** `[{ name, unit, value, range, extra }]` for `benchmark-action/github-action-benchmark` with `tool: customSmallerIsBetter`. */
export function githubActionBenchmark(report: BenchReport): GithubBenchmarkEntry[] {
  return report.ratios.map((r) => ({
    name: `${r.name} (${r.metric ?? 'checks-on / checks-off'})`,
    unit: 'ratio',
    value: fixed(r.ratio),
    range: `±${fixed(Math.max(r.ciHigh - r.ratio, r.ratio - r.ciLow))}`,
    extra: `${Math.round(report.settings.confidence * 100)}% CI [${r.ciLow.toFixed(4)}, ${r.ciHigh.toFixed(4)}]; ${r.verdict} at margin ${report.settings.margin}${r.informational === true ? ' (informational)' : ''}; ${r.rounds} rounds; ${report.mode}`,
  }));
}

/** `{ "<benchmark>": { "checks-ratio": { value, lower_value, upper_value } } }` for `bencher run --adapter json`. */
export function bencherMetricFormat(report: BenchReport): BencherMetricFormat {
  const out: BencherMetricFormat = {};
  for (const r of report.ratios) out[r.name] = { [r.metric === 'gpu / cpu' ? kBencherGpuMeasure : kBencherMeasure]: { value: fixed(r.ratio), lower_value: fixed(r.ciLow), upper_value: fixed(r.ciHigh) } };
  return out;
}

/**
 * The side files' paths: `out.json` → `out.github-action-benchmark.json` and `out.bmf.json`.
 */
export function sideFilePaths(jsonPath: string): { readonly githubActionBenchmark: string; readonly bencher: string } {
  const stem = jsonPath.endsWith('.json') ? jsonPath.slice(0, -'.json'.length) : jsonPath;
  return { githubActionBenchmark: `${stem}.github-action-benchmark.json`, bencher: `${stem}.bmf.json` };
}
