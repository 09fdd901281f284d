/**
 * The A/A-safe A/B schedule. A round runs every case still active once, in a shuffled order. For
 * each case both variants get a fresh child process, pinned to the same core, holding that case
 * alone (so a case's JIT state is its own, and a `--filter` run measures it as the full run does).
 * Both children build and warm it up, then they take turns timing it, slice after slice, in a
 * random order per slice pair — while one measures, the other waits idle on its stdin. Both
 * variants thus sample the same stretches of a noisy machine, and the round's ratio (the median
 * over its slice pairs of checks-on / checks-off) cancels that noise; the rounds'
 * distribution-free interval then gives the verdict. Verdicts are read at the plan's looks only (`roundsMin`, then doubling, then
 * `roundsMax`): a case decided at a look stops, the rest run on to the next look or the time
 * budget, so the budget goes to the cases still undecided.
 */
import { median, slicePairRatio } from '../stats/robust-center.js';
import { seededRandom, shuffleInPlace } from '../stats/seeded-random.js';
import { judgeRatios, verdictPlan, type RatioJudgement, type VerdictPlan } from '../stats/verdict.js';
import type { SetupContext, VariantId } from './bench-pair.js';
import type { BenchCase } from './bench-files.js';
import type { CaseStats, ChildPort, ChildStart, WarmupStats } from './child-protocol.js';
import type { Pinning } from './pinning.js';
import type { RunSettings } from './measure-settings.js';

/**
 * A slice whose child's CPU time was below this share of its wall time did not have its pinned
 * core to itself (another process ran there); the slice pair is timed again. An undisturbed slice
 * sits just below 1, so the bound only leaves room for timer noise.
 */
export const kCpuShareMin = 0.9;
/** Re-timings of one slice pair when it was disturbed; after that it is kept as it is. */
export const kDisturbedRetriesMax = 2;

/** One round of one case: both variants' medians (ns per call) and the empty function's. */
export interface RoundSample {
  readonly round: number;
  /** Which variant's child started (and set up) first in this round. */
  readonly first: VariantId;
  /** Median over the round's slices of each slice's median (ns per call). */
  readonly offNs: number;
  readonly onNs: number;
  readonly offEmptyNs: number;
  readonly onEmptyNs: number;
  /** The median over the round's slice pairs of checks-on's slice median / checks-off's. */
  readonly ratio: number;
  /** The lowest CPU share of any kept slice (see {@link kCpuShareMin}). */
  readonly cpuShareMin: number;
  /** Each variant's warm-up: how long, and whether the timed function ran TurboFan code after it. */
  readonly offWarmup: WarmupStats;
  readonly onWarmup: WarmupStats;
}

export interface CaseRounds {
  readonly case: BenchCase;
  readonly rounds: RoundSample[];
}

export type StopReason = 'decided' | 'rounds-max' | 'budget';

export interface AbOutcome {
  readonly cases: readonly CaseRounds[];
  /** Rounds started (the most any case ran). */
  readonly roundsRun: number;
  readonly elapsedSeconds: number;
  readonly stopReason: StopReason;
  /** Child processes started. */
  readonly children: number;
  /** Slice pairs timed again because a child did not have its core to itself. */
  readonly retries: number;
}

export interface AbProgress {
  readonly round: number;
  readonly file: string;
  readonly caseName: string;
  readonly elapsedSeconds: number;
  readonly children: number;
  readonly pass: number;
  readonly fail: number;
  readonly inconclusive: number;
}

export interface AbOptions {
  readonly settings: RunSettings;
  readonly pinning: Pinning;
  /** Seeds the schedule (case order, variant order). */
  readonly seed: number;
  readonly margin: number;
  /** A/A calibration: both children run with checks off. */
  readonly aa: boolean;
  /** Handed to every child, for its cases' setups. */
  readonly context: SetupContext;
  readonly onProgress?: (p: AbProgress) => void;
  /** Starts one child; tests replace it. */
  readonly startChild: (start: ChildStart, pinning: Pinning) => Promise<ChildPort>;
  /** The clock (ms); tests replace it. */
  readonly nowMs?: () => number;
}

/** The judgement of a case's rounds so far. */
export function judgeCase(rounds: readonly RoundSample[], plan: VerdictPlan): RatioJudgement {
  return judgeRatios(rounds.map((r) => r.ratio), plan);
}

/**
 * Runs the rounds.
 *
 * @throws Error when a child fails (its stderr tail is in the message).
 */
export async function runAbRounds(cases: readonly BenchCase[], options: AbOptions): Promise<AbOutcome> {
  const { settings, pinning } = options;
  const plan = verdictPlan(settings.rounds, options.margin);
  const looks = new Set(plan.looks);
  const now = options.nowMs ?? (() => Date.now());
  const startMs = now();
  const random = seededRandom(options.seed ^ 0x5c4ed);
  const records: CaseRounds[] = cases.map((c) => ({ case: c, rounds: [] as RoundSample[] }));
  const roundMsOf = new Map<CaseRounds, number>();
  const active = new Set(records);
  // A case's verdict, recomputed only when it gained rounds.
  const judged = new Map<CaseRounds, { readonly rounds: number; readonly verdict: RatioJudgement['verdict'] }>();
  const verdictOf = (r: CaseRounds): RatioJudgement['verdict'] => {
    if (r.rounds.length === 0) return 'inconclusive';
    const cached = judged.get(r);
    if (cached?.rounds === r.rounds.length) return cached.verdict;
    const verdict = judgeCase(r.rounds, plan).verdict;
    judged.set(r, { rounds: r.rounds.length, verdict });
    return verdict;
  };
  const tally = (): { pass: number; fail: number; inconclusive: number } => {
    const t = { pass: 0, fail: 0, inconclusive: 0 };
    for (const r of records) t[verdictOf(r)]++;
    return t;
  };
  let children = 0;
  let retries = 0;
  let round = 0;
  let stopReason: StopReason = 'decided';
  let counts = tally();

  // One pair of children for one case, alive for its round.
  const runCase = async (record: CaseRounds): Promise<void> => {
    const file = record.case.file;
    const order: VariantId[] = random() < 0.5 ? ['checks-off', 'checks-on'] : ['checks-on', 'checks-off'];
    const start = (variant: VariantId): ChildStart => ({
      file,
      variant,
      cases: [{ name: record.case.name, pairIndex: record.case.pairIndex, pointIndex: record.case.pointIndex }],
      warmupMs: settings.measure.warmupMs,
      aa: options.aa,
      context: options.context,
    });
    const ports = new Map<VariantId, ChildPort>();
    try {
      // One after the other: two children starting at once on one core would disturb each other's empty function.
      for (const variant of order) {
        ports.set(variant, await options.startChild(start(variant), pinning));
        children++;
      }
      const port = (v: VariantId): ChildPort => ports.get(v) as ChildPort;
      // The child holds this one case, at index 0 of its list.
      const index = 0;
      options.onProgress?.({ round, file, caseName: record.case.name, elapsedSeconds: (now() - startMs) / 1000, children, ...counts });
      const warmups = new Map<VariantId, WarmupStats>();
      for (const variant of order) warmups.set(variant, await port(variant).setup(index));
      const slices = new Map<VariantId, CaseStats[]>([['checks-off', []], ['checks-on', []]]);
      for (let s = 0; s < settings.measure.slices; s++) {
        const pairOrder: VariantId[] = random() < 0.5 ? ['checks-off', 'checks-on'] : ['checks-on', 'checks-off'];
        let pair: CaseStats[] = [];
        // Bounded: a disturbed pair is timed again at most kDisturbedRetriesMax times.
        for (let attempt = 0; attempt <= kDisturbedRetriesMax; attempt++) {
          if (attempt > 0) retries++;
          pair = [];
          for (const variant of pairOrder) pair.push(await port(variant).measure(index, settings.measure.sliceMs));
          if (!pair.some((p) => p.cpuShare < kCpuShareMin)) break;
        }
        pairOrder.forEach((variant, i) => (slices.get(variant) as CaseStats[]).push(pair[i] as CaseStats));
      }
      const off = slices.get('checks-off') as CaseStats[];
      const on = slices.get('checks-on') as CaseStats[];
      const offNs = median(off.map((x) => x.p50Ns));
      const onNs = median(on.map((x) => x.p50Ns));
      const ratio = slicePairRatio(on.map((x) => x.p50Ns), off.map((x) => x.p50Ns));
      record.rounds.push({
        round,
        first: order[0] as VariantId,
        offNs,
        onNs,
        offEmptyNs: port('checks-off').empty.p50Ns,
        onEmptyNs: port('checks-on').empty.p50Ns,
        ratio,
        cpuShareMin: Math.min(...off.map((x) => x.cpuShare), ...on.map((x) => x.cpuShare)),
        offWarmup: warmups.get('checks-off') as WarmupStats,
        onWarmup: warmups.get('checks-on') as WarmupStats,
      });
    } finally {
      for (const p of ports.values()) await p.close();
    }
  };

  // Bounded by roundsMax.
  while (active.size > 0) {
    if (round >= settings.rounds.roundsMax) {
      stopReason = 'rounds-max';
      break;
    }
    const nextRoundMs = [...active].reduce((ms, r) => ms + (roundMsOf.get(r) ?? 0), 0);
    // The budget never stops a run before its first look: without it no case has a verdict.
    if (round >= settings.rounds.roundsMin && (now() - startMs + nextRoundMs) / 1000 > settings.rounds.budgetSeconds) {
      stopReason = 'budget';
      break;
    }
    round++;
    for (const record of shuffleInPlace([...active], random)) {
      const caseStartMs = now();
      await runCase(record);
      counts = tally();
      roundMsOf.set(record, now() - caseStartMs);
    }
    if (looks.has(round)) {
      for (const record of [...active]) if (verdictOf(record) !== 'inconclusive') active.delete(record);
    }
  }
  return { cases: records, roundsRun: round, elapsedSeconds: (now() - startMs) / 1000, stopReason, children, retries };
}
