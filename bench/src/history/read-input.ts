import { readFileSync } from 'node:fs';
import { HistoryInputError } from './errors.js';
import { JsonFields } from './json-fields.js';

/** A parsed input document and a field reader whose failures name the input. */
export interface InputDocument {
  readonly doc: unknown;
  readonly fields: JsonFields;
}

/**
 * Reads and parses one input file (`--bench`, `--fuzz`, `--kill-table`).
 *
 * @param path - resolved path to read
 * @param label - how messages name the file, e.g. `--bench out/bench.json`
 * @throws HistoryInputError when the file cannot be read or is not JSON.
 */
export function readInput(path: string, label: string): InputDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HistoryInputError(label, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new HistoryInputError(label, `is not JSON (${(error as Error).message})`);
  }
  return {
    doc,
    fields: new JsonFields((problem) => {
      throw new HistoryInputError(label, problem);
    }),
  };
}

/** Checks the document's `kvfuzz` schema tag. */
export function expectSchema(input: InputDocument, schema: string, producedBy: string): Record<string, unknown> {
  const d = input.fields.object(input.doc, 'the document');
  if (d['kvfuzz'] !== schema) input.fields.problem(`kvfuzz is ${JSON.stringify(d['kvfuzz']) ?? 'missing'}, not "${schema}" (write it with ${producedBy})`);
  return d;
}
