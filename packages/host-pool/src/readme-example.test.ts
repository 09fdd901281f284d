import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// The README imports these from '@kvfuzz/host-pool'; index.ts is that entry point.
import { HostDoubleFreeError, HostSlotPool } from './index.js';

const kReadmePath = fileURLToPath(new URL('../README.md', import.meta.url));
const kThisPath = fileURLToPath(import.meta.url);

/** The text between `// readme:begin` and `// readme:end` in this file, dedented. */
function exampleInThisFile(): string {
  const lines = readFileSync(kThisPath, 'utf8').split('\n');
  const begin = lines.findIndex((line) => line.trim() === '// readme:begin');
  const end = lines.findIndex((line) => line.trim() === '// readme:end');
  const body = lines.slice(begin + 1, end);
  const indent = Math.min(...body.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length));
  return body.map((line) => line.slice(indent)).join('\n').trim();
}

/** The README's usage block: the ```ts fence after the "## Usage" heading, without its import line. */
function exampleInReadme(): string {
  const readme = readFileSync(kReadmePath, 'utf8');
  const usage = readme.slice(readme.indexOf('## Usage'));
  const match = /```ts\n([\s\S]*?)```/.exec(usage);
  return (match?.[1] ?? '')
    .split('\n')
    .filter((line) => !line.startsWith('import '))
    .join('\n')
    .trim();
}

describe('host-pool:readme', () => {
  it('the README usage example is this test, verbatim', () => {
    expect(exampleInReadme()).toBe(exampleInThisFile());
  });

  it('the README usage example runs and its comments are true', () => {
    // readme:begin
    // The engine's test geometry: 8 requested tokens on page 2 → 8 // 2 + 1 = 5 pages = 10 slots.
    const pool = new HostSlotPool({ sizeTokens: 8, pageSize: 2, dcpSize: 1, checks: true });

    const a = pool.alloc(4)!; // 0, 1, 2, 3
    const b = pool.alloc(6)!; // 4 … 9; availableSize() is 0
    pool.free(a.subarray(0, 2)); // 0, 1 wait in the release list; availableSize() is 2
    pool.free(b.subarray(2)); // 6 … 9 too; the free list itself stays empty
    const c = pool.alloc(4)!; // short: merged to [0, 1, 6, 7, 8, 9]; the run 6, 7, 8, 9 is taken

    // Giving a slot back twice throws and changes nothing.
    try {
      pool.free(a);
    } catch (error) {
      if (!(error instanceof HostDoubleFreeError)) throw error;
      // error.message: 'Double-free detected: slots not currently allocated: [0, 1].'
    }

    // Under DCP the host page is the widened page: kernel page 2 × DCP 4 = 8 logical slots.
    const dcp = new HostSlotPool({ sizeTokens: 32, pageSize: 8, dcpSize: 4, checks: true }); // 40 slots, 10 rows per rank
    const pages = dcp.alloc(16)!; // logical 0 … 15
    const rows = dcp.physicalRows(pages, 1); // rank 1 holds logical 1, 5, 9, 13: rows 0, 1, 2, 3
    // readme:end

    expect(pool.size).toBe(10);
    expect(Array.from(a)).toEqual([0, 1, 2, 3]);
    expect(Array.from(b)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(Array.from(c)).toEqual([6, 7, 8, 9]);
    expect(Array.from(pool.inspect().free)).toEqual([0, 1]);
    expect(() => pool.free(a)).toThrow('Double-free detected: slots not currently allocated: [0, 1].');
    expect(pool.availableSize()).toBe(2);
    expect(dcp.size).toBe(40);
    expect(dcp.physicalSize).toBe(10);
    expect(Array.from(pages)).toEqual(Array.from({ length: 16 }, (_, slot) => slot));
    expect(Array.from(rows)).toEqual([0, 1, 2, 3]);
  });
});
