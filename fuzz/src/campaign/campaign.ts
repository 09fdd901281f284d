import { findTarget } from '../fuzz-targets.js';
import type { ModelRunReport } from '../models/run-model.js';
import { batchOfShard, batchSeed, type Shard } from './batch-seed.js';
import { kRunsPerBatch } from './campaign-job.js';
import type { WorkerPool } from './worker-pool.js';

/** What one target's campaign did. */
export interface TargetCampaign {
  readonly target: string;
  readonly mutant: string | null;
  readonly mode: 'contract' | 'exact';
  readonly runs: number;
  readonly commands: number;
  readonly batches: number;
  readonly elapsedMs: number;
  /** The failure of the lowest-numbered failing batch, if any. */
  readonly failure: null | {
    readonly batch: number;
    readonly batchSeed: number;
    readonly report: ModelRunReport<unknown>;
    readonly text: string;
    readonly detectMs: number;
  };
}

export interface CampaignProgress {
  readonly runs: number;
  readonly commands: number;
  readonly failures: number;
  readonly elapsedMs: number;
}

/**
 * Runs one target for `timeMs`: batches of this shard, one per free worker, until the time is up or
 * a batch fails (the batches already running finish; the lowest failing batch is kept). A target
 * whose time ran out before one run finished (a budget shorter than a GPU device's start) then gets
 * one run past it, so that no target reports a clean result on nothing.
 */
export async function runTargetCampaign(
  pool: WorkerPool,
  options: { readonly target: string; readonly mutant: string | null; readonly seed: number; readonly shard: Shard; readonly timeMs: number },
  onProgress: (p: CampaignProgress) => void,
): Promise<TargetCampaign> {
  if (findTarget(options.target) === undefined) throw new Error(`no fuzz target named ${options.target}`);
  const started = Date.now();
  const deadline = started + options.timeMs;
  let next = 0;
  let runs = 0;
  let commands = 0;
  let batches = 0;
  let mode: 'contract' | 'exact' = 'contract';
  // A holder, not a let: the loops below assign it from their own closures.
  const found: { failure: TargetCampaign['failure'] } = { failure: null };
  const runBatch = async (numRuns: number, timeLimitMs: number | null): Promise<void> => {
    const batch = batchOfShard(options.shard, next++);
    const seed = batchSeed(options.seed, batch);
    const result = await pool.run({ target: options.target, mutant: options.mutant, seed, numRuns, timeLimitMs }, (executed) => {
      runs++;
      commands += executed;
      onProgress({ runs, commands, failures: found.failure === null ? 0 : 1, elapsedMs: Date.now() - started });
    });
    batches++;
    mode = result.mode;
    // Another loop may have stored a failure while this batch ran (TypeScript cannot see across the await).
    const previous = found.failure as TargetCampaign['failure'];
    if (result.report.failed && (previous === null || batch < previous.batch)) {
      found.failure = { batch, batchSeed: seed, report: result.report, text: result.failureText, detectMs: Date.now() - started };
    }
  };
  const loop = async (): Promise<void> => {
    while (Date.now() < deadline && found.failure === null) await runBatch(kRunsPerBatch, deadline - Date.now());
  };
  await Promise.all(Array.from({ length: Math.max(1, pool.size) }, loop));
  if (runs === 0 && found.failure === null) await runBatch(1, null);
  return { target: options.target, mutant: options.mutant, mode, runs, commands, batches, elapsedMs: Date.now() - started, failure: found.failure };
}

/** One row of the kill table. */
export interface KillRow {
  readonly target: string;
  readonly mutant: string;
  readonly mode: 'contract' | 'exact';
  readonly killed: boolean;
  readonly detectMs: number | null;
  readonly shrunkLength: number | null;
  readonly rule: string | null;
  readonly seed: number;
}

/** Runs every mutant of every target (spread over the pool), each for at most `timeMs`. */
export async function runKillTable(pool: WorkerPool, seed: number, timeMs: number, targets: readonly string[], onDone: (row: KillRow) => void): Promise<KillRow[]> {
  const jobs = targets.flatMap((name) => (findTarget(name)?.mutants ?? []).map((m) => ({ target: name, mutant: m.name })));
  return Promise.all(
    jobs.map(async ({ target, mutant }, i) => {
      const jobSeed = batchSeed(seed, i);
      const result = await pool.run({ target, mutant, seed: jobSeed, numRuns: Number.MAX_SAFE_INTEGER, timeLimitMs: timeMs }, () => {});
      const r = result.report;
      const row: KillRow = {
        target,
        mutant,
        mode: result.mode,
        killed: r.failed,
        detectMs: r.detectMs === null ? null : Math.round(r.detectMs),
        shrunkLength: r.failure?.program.length ?? null,
        rule: r.failure?.rule ?? null,
        seed: jobSeed,
      };
      onDone(row);
      return row;
    }),
  );
}
