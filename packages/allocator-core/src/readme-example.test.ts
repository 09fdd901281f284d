import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// The README imports these from '@kvfuzz/allocator-core'; index.ts is that entry point.
import { createAllocator, DoubleFreeError } from './index.js';

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

describe('allocator-core:readme', () => {
  it('the README usage example is this test, verbatim', () => {
    expect(exampleInReadme()).toBe(exampleInThisFile());
  });

  it('the README usage example runs and its comments are true', () => {
    // readme:begin
    // Kernel page 2 × DCP 2: the allocator page is 4 slots; 16 pages, page 0 reserved.
    const allocator = createAllocator({ sizeTokens: 64, kernelPageSize: 2, dcpSize: 2, needSort: false, checks: true });

    // A request's prompt of 6 tokens, 3 more tokens, then one decode step.
    const prompt = allocator.allocExtend({ prefixLens: [0], seqLens: [6], lastLoc: [-1] })!; // 4 … 9
    const more = allocator.allocExtend({ prefixLens: [6], seqLens: [9], lastLoc: [prompt[5]!] })!; // 10, 11, 12
    const next = allocator.allocDecode({ seqLens: [10], lastLoc: [more[2]!] })!; // 13
    const row = Int32Array.from([...prompt, ...more, ...next]); // row positions 0 … 9 → slots 4 … 13

    // Whole pages; freed pages go to the front of the free list and are handed out next.
    const scratch = allocator.alloc(8)!; // pages 4, 5: slots 16 … 23
    allocator.free(scratch);

    // Roll back a tentative allocation.
    const snapshot = allocator.backupState();
    allocator.alloc(16);
    allocator.restoreState(snapshot); // availableSize() is 52 again

    // Finish the request: its row as page-aligned, page-disjoint segments, released at group end.
    allocator.freeGroupBegin();
    allocator.freeSegments([
      { indices: row.subarray(0, 8), startPos: 0 },
      { indices: row.subarray(8), startPos: 8 },
    ]);
    allocator.freeGroupEnd(); // availableSize() is 64

    // Giving a page back twice throws and changes nothing.
    try {
      allocator.free(row);
    } catch (error) {
      if (!(error instanceof DoubleFreeError)) throw error;
      // error.message: 'Double-free detected: pages not currently allocated: [1, 2, 3].'
    }
    // readme:end

    expect(allocator.pageSize).toBe(4);
    expect(allocator.numPages).toBe(16);
    expect(Array.from(prompt)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(Array.from(more)).toEqual([10, 11, 12]);
    expect(Array.from(next)).toEqual([13]);
    expect(Array.from(row)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(Array.from(scratch)).toEqual([16, 17, 18, 19, 20, 21, 22, 23]);
    expect(allocator.availableSize()).toBe(64);
    expect(() => allocator.free(row)).toThrow('Double-free detected: pages not currently allocated: [1, 2, 3].');
    allocator.restoreState(snapshot);
    expect(allocator.availableSize()).toBe(52);
  });
});
