import fc from 'fast-check';
import { campaignReport, checkParameters, type CampaignOptions, type ModelRunReport } from './run-model.js';

/**
 * One model whose commands await (the GPU model), as the campaign runner needs it: the
 * asynchronous twin of `ModelSpec`. The synchronous models keep `runCampaign`, so they pay for no
 * promise per command.
 */
export interface AsyncModelSpec<G, M extends object, R> {
  /** A run: its geometry (printed in failures) and its command sequence. */
  readonly arbitrary: fc.Arbitrary<[G, Iterable<fc.AsyncCommand<M, R>>]>;
  readonly setup: (geometry: G) => Promise<{ model: M; real: R }>;
  /** The end of every run: give everything back and check the whole system is clean. */
  readonly drain: (model: M, real: R) => Promise<void>;
  /** Commands the model executed (for throughput statistics). */
  readonly executed: (model: M) => number;
}

/**
 * Runs an asynchronous model campaign with `fc.check` + `fc.asyncModelRun`: random runs until
 * `numRuns` or the time limit, a drain at the end of each, shrinking on failure. Never throws for a
 * failure: it reports it, exactly as `runCampaign` does.
 */
export async function runAsyncCampaign<G, M extends object, R>(spec: AsyncModelSpec<G, M, R>, options: CampaignOptions = {}): Promise<ModelRunReport<G>> {
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
  const started = performance.now();
  let detectMs: number | null = null;
  let commands = 0;
  let runs = 0;
  const property = fc.asyncProperty(spec.arbitrary, async ([g, cmds]) => {
    let model: M | null = null;
    try {
      // Inside the try: a provider whose create breaks the contract fails the run like any command.
      const made = await spec.setup(g);
      model = made.model;
      await fc.asyncModelRun(() => made, cmds);
      await spec.drain(made.model, made.real);
    } catch (error) {
      detectMs ??= performance.now() - started;
      throw error;
    } finally {
      if (detectMs === null && model !== null) {
        runs++;
        commands += spec.executed(model);
        options.onRun?.(spec.executed(model));
      }
    }
  });
  const details = await fc.check(property, checkParameters(seed, options));
  return campaignReport(details, { runs, commands, elapsedMs: performance.now() - started, detectMs });
}

/** Runs one program (a geometry and a command list) and drains; rejects with what the oracle finds. */
export async function runAsyncProgram<G, M extends object, R>(spec: AsyncModelSpec<G, M, R>, geometry: G, commands: Iterable<fc.AsyncCommand<M, R>>): Promise<M> {
  const { model, real } = await spec.setup(geometry);
  await fc.asyncModelRun(() => ({ model, real }), commands);
  await spec.drain(model, real);
  return model;
}
