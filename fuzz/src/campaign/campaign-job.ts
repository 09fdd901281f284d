import { findTarget, type TargetRun } from '../fuzz-targets.js';
import type { ModelRunReport } from '../models/run-model.js';

/** Runs per batch: short enough that a time budget ends close to on time, long enough to amortize setup. */
export const kRunsPerBatch = 100;

/** Sent to a worker instead of a job: stop listening, so the thread exits once its event loop is empty. */
export const kCloseMessage = 'close';

/** One unit of campaign work, as sent to a worker. */
export interface CampaignJob {
  readonly target: string;
  readonly mutant: string | null;
  readonly seed: number;
  /** Runs to try (a batch), or unbounded for a kill-table entry. */
  readonly numRuns: number;
  /** Milliseconds from the job's start after which no new run starts; null: `numRuns` alone bounds the job. */
  readonly timeLimitMs: number | null;
}

export interface CampaignJobResult {
  readonly mode: 'contract' | 'exact';
  readonly report: ModelRunReport<unknown>;
  /** The failure as text, formatted where the target is known. */
  readonly failureText: string;
}

/**
 * Runs one job in this thread: at once for a synchronous target, as a promise for one whose model
 * awaits (the GPU), so the synchronous targets pay for no promise per run.
 */
export function runCampaignJob(job: CampaignJob, onRun: (executed: number) => void): CampaignJobResult | Promise<CampaignJobResult> {
  const target = findTarget(job.target);
  if (target === undefined) throw new Error(`no fuzz target named ${job.target}`);
  const ran = target.run({ seed: job.seed, numRuns: job.numRuns, ...(job.timeLimitMs === null ? {} : { timeLimitMs: Math.max(1, job.timeLimitMs) }), onRun }, job.mutant);
  const result = ({ report, mode }: TargetRun): CampaignJobResult => ({ mode, report, failureText: report.failed ? target.formatFailure(report) : '' });
  return ran instanceof Promise ? ran.then(result) : result(ran);
}
