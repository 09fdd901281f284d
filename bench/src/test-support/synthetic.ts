/**
 * Synthetic rounds, reports and children for the unit tests: no timing is ever measured here.
 *
 * @internal
 */
import { seededRandom } from '../stats/seeded-random.js';
import type { AbOutcome, RoundSample } from '../harness/ab-rounds.js';
import { benchPair, type BenchArgs } from '../harness/bench-pair.js';
import type { BenchCase } from '../harness/bench-files.js';
import { buildReport, type BenchReport, type MachineContext } from '../report/bench-report.js';
import { kQuickSettings } from '../harness/measure-settings.js';

/** `n` values `centre × (1 + noise × u)` with `u` uniform in [−1, 1], from a seed. */
export function noisy(n: number, centre: number, noise: number, seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => centre * (1 + noise * (2 * random() - 1)));
}

const kPair = benchPair({ name: 'op $n', points: [{ n: 1 }, { n: 2 }], pointsQuick: [{ n: 1 }], setup: () => ({ kind: 'fn', fn: () => {} }) });

/** A case that never runs (its setup is a no-op). */
export function syntheticCase(name: string, args: BenchArgs = { n: 1 }): BenchCase {
  return { name, package: 'pkg', op: 'op', file: 'pkg/op.bench.ts', pair: kPair, args, pairIndex: 0, pointIndex: 0 };
}

const kSyntheticWarmup = { ms: 150, calls: 1000, optimized: true } as const;

/** Rounds whose checks-off median is `offNs` and whose ratio is `ratio` ± `noise`. */
export function syntheticRounds(n: number, ratio: number, noise: number, seed: number, offNs = 1000, emptyNs = 0.2): RoundSample[] {
  const ratios = noisy(n, ratio, noise, seed);
  const offs = noisy(n, offNs, noise, seed + 1);
  return ratios.map((r, i) => ({
    round: i + 1,
    first: i % 2 === 0 ? 'checks-off' : 'checks-on',
    offNs: offs[i] as number,
    onNs: (offs[i] as number) * r,
    offEmptyNs: emptyNs,
    onEmptyNs: emptyNs,
    ratio: r,
    cpuShareMin: 1,
    offWarmup: kSyntheticWarmup,
    onWarmup: kSyntheticWarmup,
  }));
}

export const kSyntheticMachine: MachineContext = {
  cpu: { model: 'Synthetic CPU', cores: 2, speedMHz: 2000 },
  os: { platform: 'linux', release: '6.0', arch: 'x64' },
  node: 'v20.20.2',
  v8: '11.3',
  mitata: '1.0.34',
  taskset: { used: true, cpu: 0, note: 'pinned: every child ran under taskset -c 0' },
  loadAverage: { start: [1, 1, 1], end: [1, 1, 1] },
};

/** The copy cycle's model in synthetic reports. */
export const kSyntheticKvModel = { name: 'qwen2.5-0.5b', kvBytesPerToken: 12_288 } as const;

/** A `bench/1` report of the given cases' rounds. */
export function syntheticReport(cases: readonly { name: string; rounds: RoundSample[] }[], machine: MachineContext = kSyntheticMachine): BenchReport {
  const outcome: AbOutcome = {
    cases: cases.map((c) => ({ case: syntheticCase(c.name), rounds: c.rounds })),
    roundsRun: Math.max(...cases.map((c) => c.rounds.length)),
    elapsedSeconds: 1,
    stopReason: 'decided',
    children: 2 * Math.max(...cases.map((c) => c.rounds.length)),
    retries: 0,
  };
  return buildReport({ outcome, settings: kQuickSettings, filter: null, aa: false, margin: 0.03, seed: 7, kvModel: kSyntheticKvModel, machine, createdAt: new Date(0) });
}
