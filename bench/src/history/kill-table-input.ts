/**
 * The times to detect of a history record, from `pnpm fuzz --kill-table --json FILE`
 * (`kill-table/1`): for each planted mutant, whether it was caught and how many milliseconds
 * its campaign ran before the first failing run.
 *
 * @packageDocumentation
 */
import type { JsonFields } from './json-fields.js';
import { expectSchema, type InputDocument } from './read-input.js';
import type { HistoryKillTable, HistoryMutant } from './types.js';

/** Reads one mutant row: a killed mutant has a `detectMs`, a survivor has null. */
export function readMutant(f: JsonFields, value: unknown, path: string): HistoryMutant {
  const r = f.object(value, path);
  const mutant: HistoryMutant = {
    mutant: f.string(r['mutant'], `${path}.mutant`),
    target: f.string(r['target'], `${path}.target`),
    mode: f.string(r['mode'], `${path}.mode`),
    killed: f.boolean(r['killed'], `${path}.killed`),
    detectMs: f.numberOrNull(r['detectMs'], `${path}.detectMs`, 'non-negative'),
  };
  if (mutant.killed && mutant.detectMs === null) f.problem(`${path}.detectMs is null, but killed is true`);
  if (!mutant.killed && mutant.detectMs !== null) f.problem(`${path}.detectMs is ${mutant.detectMs}, but killed is false (a survivor has no time to detect)`);
  return mutant;
}

/** Reads a non-empty mutant list with unique names. */
export function readMutants(f: JsonFields, value: unknown, path: string): HistoryMutant[] {
  const mutants = f.array(value, path, true).map((r, i) => readMutant(f, r, `${path}[${i}]`));
  f.unique(mutants, path, (m) => m.mutant, 'mutant');
  return mutants;
}

/**
 * Takes every mutant's time to detect out of a `kill-table/1` document.
 *
 * @throws HistoryInputError naming the first bad field.
 */
export function killTablePart(input: InputDocument): HistoryKillTable {
  const f = input.fields;
  const d = expectSchema(input, 'kill-table/1', 'pnpm fuzz --kill-table --json FILE');
  return {
    seed: f.number(d['seed'], 'seed', 'integer'),
    timePerMutantSeconds: f.number(d['timePerMutantSeconds'], 'timePerMutantSeconds', 'positive'),
    mutants: readMutants(f, d['rows'], 'rows'),
  };
}
