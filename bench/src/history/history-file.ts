/**
 * The history file: JSON lines, one `bench-history/1` record per line, in the order they were
 * added (bench/history/history.jsonl by default). Appending keeps every earlier line byte for byte,
 * so a diff of the committed file shows only the new record.
 *
 * @packageDocumentation
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DuplicateRecordError, HistoryFileError } from './errors.js';
import { parseHistoryRecord, recordKey } from './history-record.js';
import { JsonFields } from './json-fields.js';
import type { HistoryRecord } from './types.js';

/** A record and the 1-based line it sits on. */
export interface HistoryLine {
  readonly line: number;
  readonly record: HistoryRecord;
}

/**
 * Reads every record. A missing file is an empty history; blank lines are skipped.
 *
 * @throws HistoryFileError naming the line and field of the first bad record, or a repeated commit + mode.
 */
export function readHistory(path: string): HistoryLine[] {
  if (!existsSync(path)) return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HistoryFileError(path, null, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const lines: HistoryLine[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const fields = new JsonFields((problem) => {
      throw new HistoryFileError(path, line, problem);
    });
    let doc: unknown;
    try {
      doc = JSON.parse(raw);
    } catch (error) {
      throw new HistoryFileError(path, line, `is not JSON (${(error as Error).message})`);
    }
    const record = parseHistoryRecord(fields, doc);
    const first = seen.get(recordKey(record));
    if (first !== undefined) throw new HistoryFileError(path, line, `commit ${record.commit.sha.slice(0, 12)} (${record.mode}) repeats line ${first}`);
    seen.set(recordKey(record), line);
    lines.push({ line, record });
  });
  return lines;
}

/** What `addRecord` did. */
export interface AddOutcome {
  readonly action: 'added' | 'replaced';
  /** The line the record now sits on. */
  readonly line: number;
  /** Records in the history afterwards. */
  readonly records: number;
}

/**
 * Adds a record: appended at the end, or, with `replace`, written over the line that holds the
 * same commit + mode (the rest of the file unchanged; rewritten through a temporary file).
 *
 * @throws DuplicateRecordError when the commit + mode is recorded and `replace` is false.
 * @throws HistoryFileError when the existing history is unreadable.
 */
export function addRecord(path: string, record: HistoryRecord, replace: boolean): AddOutcome {
  const existing = readHistory(path);
  const twin = existing.find((h) => recordKey(h.record) === recordKey(record));
  const json = JSON.stringify(record);
  if (twin !== undefined && !replace) throw new DuplicateRecordError(record.commit.sha, record.mode, twin.line, twin.record.recordedAt);
  mkdirSync(dirname(path), { recursive: true });
  if (twin !== undefined) {
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[twin.line - 1] = json;
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, lines.join('\n'));
    renameSync(tmp, path);
    return { action: 'replaced', line: twin.line, records: existing.length };
  }
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const lead = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
  appendFileSync(path, `${lead}${json}\n`);
  // The new line's number: the text's lines ('' splits into one), one more when a newline was missing.
  return { action: 'added', line: text.split('\n').length + (lead === '' ? 0 : 1), records: existing.length + 1 };
}
