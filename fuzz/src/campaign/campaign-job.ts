import { findTarget } from '../fuzz-targets.js';
import type { ModelRunReport } from '../models/run-model.js';

/** Runs per batch: short enough that a time budget ends close to on time, long enough to amortize setup. */
export const kRunsPerBatch = 100;

/** One unit of campaign work, as sent to a worker. */
export interface CampaignJob {
  readonly target: string;
  readonly mutant: string | null;
  readonly seed: number;
  /** Runs to try (a batch), or unbounded for a kill-table entry. */
  readonly numRuns: number;
  /** Milliseconds from the job's start after which no new run starts. */
  readonly timeLimitMs: number;
}

export interface CampaignJobResult {
  readonly mode: 'contract' | 'exact';
  readonly report: ModelRunReport<unknown>;
  /** The failure as text, formatted where the target is known. */
  readonly failureText: string;
}

/** Runs one job in this thread. */
export function runCampaignJob(job: CampaignJob, onRun: (executed: number) => void): CampaignJobResult {
  const target = findTarget(job.target);
  if (target === undefined) throw new Error(`no fuzz target named ${job.target}`);
  const { report, mode } = target.run({ seed: job.seed, numRuns: job.numRuns, timeLimitMs: Math.max(1, job.timeLimitMs), onRun }, job.mutant);
  return { mode, report, failureText: report.failed ? target.formatFailure(report) : '' };
}
