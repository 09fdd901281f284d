import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HistoryFileError } from './errors.js';
import { kHistoryPathDefault } from './history-cli.js';
import { readHistory } from './history-file.js';
import { fixtureHistory } from './history-fixture.js';
import { kHistorySchema } from './types.js';

const tmpFile = (text: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'kvfuzz-history-')), 'history.jsonl');
  writeFileSync(path, text);
  return path;
};

describe('bench:history,file', () => {
  it('the committed history parses: every line a bench-history/1 record, one per commit + mode', () => {
    const lines = readHistory(kHistoryPathDefault);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const { record } of lines) {
      expect(record.kvfuzz).toBe(kHistorySchema);
      expect(record.ratios.length).toBeGreaterThan(0);
    }
  });

  it('skips blank lines and reports the line of the first bad one', () => {
    const [a, b] = fixtureHistory().map((r) => JSON.stringify(r));
    expect(readHistory(tmpFile(`${a}\n\n${b}\n`)).map((h) => h.line)).toEqual([1, 3]);
    expect(() => readHistory(tmpFile(`${a}\n{oops\n`))).toThrow(/line 2: is not JSON/);
    expect(() => readHistory(tmpFile(`${a}\n${JSON.stringify({ kvfuzz: 'bench/1' })}\n`))).toThrow(/line 2: kvfuzz is "bench\/1", not "bench-history\/1"/);
  });

  it('a commit + mode on two lines is an error naming both', () => {
    const [a] = fixtureHistory().map((r) => JSON.stringify(r));
    const error = (() => {
      try {
        readHistory(tmpFile(`${a}\n${a}\n`));
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(HistoryFileError);
    expect((error as HistoryFileError).line).toBe(2);
    expect((error as Error).message).toMatch(/line 2: commit bbbbbbbbbbbb \(full\) repeats line 1/);
  });

  it('a missing file is an empty history', () => {
    expect(readHistory(join(tmpdir(), 'kvfuzz-no-such-history.jsonl'))).toEqual([]);
  });
});
