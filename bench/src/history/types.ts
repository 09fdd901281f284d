/**
 * The `bench-history/1` record: one line of `bench/history/history.jsonl` per recorded run
 * (documented in bench/README.md, "History"). A record holds only what is tracked over commits —
 * the checks ratios with their intervals, the fuzz throughput per target and the time to detect
 * each planted mutant — plus enough context (commit, mode, machine) to read them.
 *
 * @packageDocumentation
 */
import type { Verdict } from '../stats/verdict.js';

/** The schema tag of every record; a reader refuses any other. */
export const kHistorySchema = 'bench-history/1';

/** The commit a record belongs to. */
export interface CommitInfo {
  /** Full 40-hex sha (`git rev-parse`). */
  readonly sha: string;
  /** Committer date, ISO 8601 (`git log -1 --format=%cI`); records are charted in this order. */
  readonly date: string;
  /** First line of the commit message. */
  readonly subject: string;
  /**
   * Tracked files differed from the commit when the record was added (`git status
   * --untracked-files=no`): the numbers may include uncommitted work.
   */
  readonly dirty: boolean;
}

/** The machine summary of a record (from the `bench/1` report's `machine`). */
export interface HistoryMachine {
  readonly cpu: string;
  readonly cores: number;
  readonly node: string;
  /** `platform release arch`, e.g. `linux 6.1.0 x64`. */
  readonly os: string;
  /** Whether the bench children ran pinned to one core (taskset). */
  readonly pinned: boolean;
}

/** One checks-on / checks-off ratio, as in `bench/1`'s `ratios[]`. */
export interface HistoryRatio {
  /** The bench address, e.g. `allocator-core:alloc-extend:allocExtend+free 4096 8×64`. */
  readonly name: string;
  /** Median of the per-round ratios (unitless; 1.02 = the checks cost 2%). */
  readonly ratio: number;
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly verdict: Verdict;
  readonly rounds: number;
  /** What the ratio divides, when not checks-on / checks-off (e.g. `gpu / cpu` for the GPU benches). */
  readonly metric?: string;
  /** The ratio never gates (bench/1's `informational`, e.g. the GPU / CPU comparisons). */
  readonly informational?: boolean;
}

/** Fuzz throughput of one target's campaign (the reference implementation, no mutant). */
export interface HistoryFuzzTarget {
  readonly target: string;
  readonly runs: number;
  readonly commands: number;
  readonly elapsedMs: number;
  /** Model commands per second of the campaign's wall time, over all workers. */
  readonly commandsPerSecond: number;
  /** Runs (one geometry, one command sequence, one drain) per second, over all workers. */
  readonly runsPerSecond: number;
  /** The campaign found a failure (the throughput is then that of a shortened campaign). */
  readonly failed: boolean;
}

/** The fuzz campaign a record's throughput comes from (`pnpm fuzz --json`, `fuzz-campaign/1`). */
export interface HistoryFuzz {
  readonly seed: number;
  readonly workers: number;
  readonly timeSeconds: number;
  readonly targets: readonly HistoryFuzzTarget[];
}

/** Time to detect one planted mutant (a row of `pnpm fuzz --kill-table --json`). */
export interface HistoryMutant {
  readonly mutant: string;
  readonly target: string;
  readonly mode: string;
  readonly killed: boolean;
  /** Milliseconds from the start of its campaign to the first failing run; null when it survived. */
  readonly detectMs: number | null;
}

/** The kill table a record's times to detect come from (`kill-table/1`). */
export interface HistoryKillTable {
  readonly seed: number;
  /** Each mutant's budget: a survivor was not caught within this. */
  readonly timePerMutantSeconds: number;
  readonly mutants: readonly HistoryMutant[];
}

/** One recorded run. Key: `commit.sha` + `mode` (at most one record per pair). */
export interface HistoryRecord {
  readonly kvfuzz: typeof kHistorySchema;
  readonly commit: CommitInfo;
  /** When `pnpm bench:history add` wrote the record, ISO 8601. */
  readonly recordedAt: string;
  /** The bench run's `createdAt`. */
  readonly benchCreatedAt: string;
  readonly mode: 'quick' | 'full';
  /** The bench run's `--filter`, or null when every bench of the mode ran. */
  readonly filter: string | null;
  /**
   * What one pair of the run's children held (bench/1 `settings.isolation`): one case, or every
   * case of a file. Reports before 2026-11-29 ran `file` and are recorded so; lines written
   * before then lack the field. A ratio may step between the two (bench/README.md, "Children").
   */
  readonly isolation?: 'case' | 'file';
  /**
   * How the run's children loaded the code (bench/1 `settings.layout`): one bundle, or the
   * packages as separate modules. Absent for runs from before the setting. A ratio may step by up
   * to 0.1 between the two (bench/README.md, "What the bundle changes").
   */
  readonly layout?: 'bundle' | 'modules';
  /**
   * How the run's intervals were made (bench/1 `settings.interval`): `order-statistic`, the
   * median's distribution-free interval read at planned looks. Absent for runs whose intervals
   * were a percentile bootstrap; intervals may widen at the change.
   */
  readonly interval?: 'order-statistic';
  /**
   * How the run made a round's ratio (bench/1 `settings.roundRatio`): `slice-pairs`, the median of
   * the round's slice pairs' ratios. Absent for runs that took the ratio of the two variants'
   * medians; a round's ratio is less noisy after the change.
   */
  readonly roundRatio?: 'slice-pairs';
  /**
   * The rounds at which the run read each case's interval (bench/1 `settings.looks`), e.g.
   * `[10, 20, 40, 80]`. Absent for records written before the field; a later look lets a case
   * near the margin decide where it stayed undecided before.
   */
  readonly looks?: readonly number[];
  /** Non-inferiority margin of the verdicts (0.03: a ratio's CI must stay below 1.03). */
  readonly margin: number;
  /** Two-sided confidence of the first look's interval (later looks' are higher: the family's 95% is spent over them). */
  readonly confidence: number;
  readonly machine: HistoryMachine;
  readonly ratios: readonly HistoryRatio[];
  /** Null when no `--fuzz` file was given. */
  readonly fuzz: HistoryFuzz | null;
  /** Null when no `--kill-table` file was given. */
  readonly killTable: HistoryKillTable | null;
}
