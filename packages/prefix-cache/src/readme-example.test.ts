import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAllocator } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
// The README imports these from '@kvfuzz/prefix-cache'; index.ts is that entry point.
import { newReqKvInfo, RadixCache, ReqToTokenPool, type Req } from './index.js';

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

/** The README's usage block: the ```ts fence after the "## Usage" heading, without its import lines. */
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

describe('prefix-cache:readme', () => {
  it('the README usage example is this test, verbatim', () => {
    expect(exampleInReadme()).toBe(exampleInThisFile());
  });

  it('the README usage example runs and its comments are true', () => {
    // readme:begin
    // Kernel page 2 × DCP 4: the allocator (and tree) page is 8 slots; 16 pages, page 0 reserved.
    const allocator = createAllocator({ sizeTokens: 128, kernelPageSize: 2, dcpSize: 4, needSort: false, checks: true });
    const reqToToken = new ReqToTokenPool(4, 64); // 4 live requests, 64 positions each
    const cache = new RadixCache({ allocator, reqToToken, kernelPageSize: 2 });

    // Admit: match the prompt, lock the match, write its slots into a fresh row.
    const tokens = Array.from({ length: 21 }, (_, i) => 100 + i);
    const rowIdx = reqToToken.alloc()!;
    const match = cache.matchPrefix(tokens, null); // nothing cached yet: 0 slots, the root
    cache.lock(match.lastNode);
    reqToToken.write(rowIdx, 0, match.indices);
    const req: Req = { id: 1, tokens, extraKey: null, kv: newReqKvInfo(rowIdx, match.indices.length), lastNode: match.lastNode };

    // Chunked prefill: 13 tokens, then cache the whole pages ([0, 8)) and protect them.
    const chunk = allocator.allocExtend({ prefixLens: [0], seqLens: [13], lastLoc: [-1] })!; // pages 1, 2
    reqToToken.write(rowIdx, 0, chunk);
    req.kv.kvCommittedLen = req.kv.kvAllocatedLen = 13;
    cache.cacheUnfinishedReq(req); // req.kv.cacheProtectedLen is 8; the tree holds page 1, locked

    // The rest of the prompt, then finish with a component's cap on the kernel grid (10 = 5 kernel pages).
    const rest = allocator.allocExtend({ prefixLens: [13], seqLens: [21], lastLoc: [chunk[12]!] })!; // page 3
    reqToToken.write(rowIdx, 13, rest);
    req.kv.kvCommittedLen = req.kv.kvAllocatedLen = 21;
    cache.releaseRequest(req, { capTokens: 10 });
    // The tree keeps [0, 8); [8, 10) and [10, 21) meet inside page 2 and go back as one range:
    // pages 2 and 3, each once. The row is free again and nothing is locked.

    // A later request with the same prompt reuses page 1; evicting the tree gives it back.
    const reused = cache.matchPrefix(tokens, null); // reused.indices: slots 8 … 15
    cache.evict(cache.evictableSize()); // allocator.availableSize() is 128 again
    // readme:end

    expect(Array.from(chunk)).toEqual([8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(Array.from(rest)).toEqual([21, 22, 23, 24, 25, 26, 27, 28]);
    expect(req.kv).toEqual({ reqPoolIdx: rowIdx, cacheProtectedLen: 8, kvCommittedLen: 21, kvAllocatedLen: 21, swaEvictedSeqlen: 0 });
    expect(req.lastNode).toBeNull();
    expect(Array.from(reused.indices)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(reqToToken.availableRows()).toBe(4);
    expect(cache.totalSize()).toBe(0);
    expect(cache.protectedSize()).toBe(0);
    expect(allocator.availableSize()).toBe(128);
  });

  it('the comments in the middle of the example are true', () => {
    const allocator = createAllocator({ sizeTokens: 128, kernelPageSize: 2, dcpSize: 4, needSort: false, checks: true });
    const reqToToken = new ReqToTokenPool(4, 64);
    const cache = new RadixCache({ allocator, reqToToken, kernelPageSize: 2 });
    const tokens = Array.from({ length: 21 }, (_, i) => 100 + i);
    const rowIdx = reqToToken.alloc() as number;
    const match = cache.matchPrefix(tokens, null);
    expect(match.indices.length).toBe(0);
    expect(match.lastNode).toBe(cache.tree.root);
    cache.lock(match.lastNode);
    const req: Req = { id: 1, tokens, extraKey: null, kv: newReqKvInfo(rowIdx, 0), lastNode: match.lastNode };
    const chunk = allocator.allocExtend({ prefixLens: [0], seqLens: [13], lastLoc: [-1] }) as Int32Array;
    reqToToken.write(rowIdx, 0, chunk);
    req.kv.kvCommittedLen = req.kv.kvAllocatedLen = 13;
    cache.cacheUnfinishedReq(req);
    expect(req.kv.cacheProtectedLen).toBe(8);
    expect([cache.totalSize(), cache.protectedSize()]).toEqual([8, 8]);
    const rest = allocator.allocExtend({ prefixLens: [13], seqLens: [21], lastLoc: [chunk[12] as number] }) as Int32Array;
    reqToToken.write(rowIdx, 13, rest);
    req.kv.kvCommittedLen = req.kv.kvAllocatedLen = 21;
    const before = allocator.availableSize();
    cache.releaseRequest(req, { capTokens: 10 });
    expect(allocator.availableSize() - before).toBe(2 * 8);
    expect(Array.from(allocator.inspect().free.subarray(0, 2)).sort((a, b) => a - b)).toEqual([2, 3]);
    expect(cache.totalSize()).toBe(8);
  });
});
