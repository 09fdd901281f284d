/**
 * The fuzz throughput of a history record, from `pnpm fuzz --time S --json FILE`
 * (`fuzz-campaign/1`): commands and runs per second for each target.
 *
 * @packageDocumentation
 */
import type { JsonFields } from './json-fields.js';
import { expectSchema, type InputDocument } from './read-input.js';
import type { HistoryFuzz, HistoryFuzzTarget } from './types.js';

/** Rates are kept to this many decimals: finer is far below the run-to-run noise. */
const kRateDecimals = 1;

function rate(count: number, elapsedMs: number): number {
  const scale = 10 ** kRateDecimals;
  return Math.round((count / (elapsedMs / 1000)) * scale) / scale;
}

/** Reads one history fuzz target (also used for the history file's own lines). */
export function readFuzzTarget(f: JsonFields, value: unknown, path: string): HistoryFuzzTarget {
  const t = f.object(value, path);
  return {
    target: f.string(t['target'], `${path}.target`),
    runs: f.number(t['runs'], `${path}.runs`, 'non-negative integer'),
    commands: f.number(t['commands'], `${path}.commands`, 'non-negative integer'),
    elapsedMs: f.number(t['elapsedMs'], `${path}.elapsedMs`, 'positive'),
    commandsPerSecond: f.number(t['commandsPerSecond'], `${path}.commandsPerSecond`, 'non-negative'),
    runsPerSecond: f.number(t['runsPerSecond'], `${path}.runsPerSecond`, 'non-negative'),
    failed: f.boolean(t['failed'], `${path}.failed`),
  };
}

/**
 * Takes the per-target throughput out of a `fuzz-campaign/1` document. A campaign against a
 * planted mutant is refused: throughput is tracked for the reference implementation only.
 *
 * @throws HistoryInputError naming the first bad field.
 */
export function fuzzPart(input: InputDocument): HistoryFuzz {
  const f = input.fields;
  const d = expectSchema(input, 'fuzz-campaign/1', 'pnpm fuzz --json FILE');
  const targets = f.array(d['targets'], 'targets', true).map((value, i): HistoryFuzzTarget => {
    const path = `targets[${i}]`;
    const t = f.object(value, path);
    if (t['mutant'] !== null && t['mutant'] !== undefined) f.problem(`${path}.mutant is ${JSON.stringify(t['mutant'])}: a campaign against a planted mutant is not the reference's throughput`);
    const runs = f.number(t['runs'], `${path}.runs`, 'non-negative integer');
    const commands = f.number(t['commands'], `${path}.commands`, 'non-negative integer');
    const elapsedMs = f.number(t['elapsedMs'], `${path}.elapsedMs`, 'positive');
    return {
      target: f.string(t['target'], `${path}.target`),
      runs,
      commands,
      elapsedMs,
      commandsPerSecond: rate(commands, elapsedMs),
      runsPerSecond: rate(runs, elapsedMs),
      failed: f.boolean(t['failed'], `${path}.failed`),
    };
  });
  return fuzzRun(f, d, '', targets);
}

/**
 * A campaign's seed, workers and time around its per-target rows (each target once), read at
 * `prefix`: `''` in a `fuzz-campaign/1` document, `'fuzz.'` in a stored history record.
 *
 * @throws HistoryInputError naming the first bad field.
 */
export function fuzzRun(f: JsonFields, d: Readonly<Record<string, unknown>>, prefix: string, targets: HistoryFuzzTarget[]): HistoryFuzz {
  f.unique(targets, `${prefix}targets`, (t) => t.target, 'target');
  return {
    seed: f.number(d['seed'], `${prefix}seed`, 'integer'),
    workers: f.number(d['workers'], `${prefix}workers`, 'non-negative integer'),
    timeSeconds: f.number(d['timeSeconds'], `${prefix}timeSeconds`, 'positive'),
    targets,
  };
}
