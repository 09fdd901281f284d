import type { DataCommand } from '../../src/models/command-data.js';
import type { ModelRunReport } from '../../src/models/run-model.js';

/**
 * A campaign report with one failure, made by hand: what `storeRegression` takes. The commands
 * come from a model's builders, so the stored data and the printed program agree.
 */
export function failureReport(
  commands: readonly DataCommand[],
  geometry: unknown,
  message: string,
  fields: { readonly rule?: string; readonly seed?: number; readonly path?: string } = {},
): ModelRunReport<unknown> {
  return {
    failed: true,
    interrupted: false,
    runs: 1,
    commands: commands.length,
    elapsedMs: 1,
    seed: fields.seed ?? 5,
    detectMs: 1,
    failure: {
      path: fields.path ?? '0:0',
      geometry,
      commands: commands.map((c) => c.toData()),
      program: commands.map(String),
      contractRule: null,
      errorName: 'LedgerViolation',
      message,
      rule: fields.rule ?? 'leak',
    },
  };
}
