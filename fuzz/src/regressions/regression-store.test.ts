import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRunReport } from '../models/run-model.js';
import { failureSignature } from './failure-signature.js';
import { storeRegression } from './regression-store.js';
import { loadRegression, replayRegression } from './replay-regression.js';

const geometry = { kernelPageSize: 2, dcpSize: 2, poolPages: 4, needSort: false, checks: true };

function report(program: string[], message: string): ModelRunReport<unknown> {
  return {
    failed: true,
    interrupted: false,
    runs: 3,
    commands: 30,
    elapsedMs: 12,
    seed: 99,
    detectMs: 5,
    failure: { path: '3:1:0', geometry, program, errorName: 'LedgerViolation', message, rule: 'double-free' },
  };
}

describe('fuzz:regressions,store', () => {
  it('names a failure by its rule and its message without numbers', () => {
    expect(failureSignature('allocator', 'double-free', 'page 17 given back twice')).toBe(failureSignature('allocator', 'double-free', 'page 4 given back twice'));
    expect(failureSignature('allocator', 'double-free', 'page 17 given back twice')).not.toBe(failureSignature('allocator', 'leak', 'page 17 given back twice'));
    expect(failureSignature('allocator', 'KVFUZZ_SEGMENT', 'x')).toMatch(/^kvfuzz-segment-[0-9a-f]{10}$/);
  });

  it('writes the record and a replaying Vitest file once per signature', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    const first = storeRegression('allocator', report(['alloc(8)', 'freeRow(0)'], 'page 3 given back twice'), { seed: 1, batch: 4, shard: '0/1' }, dir);
    expect(first.created).toBe(true);
    const again = storeRegression('allocator', report(['alloc(4)'], 'page 9 given back twice'), { seed: 2, batch: 0, shard: '0/1' }, dir);
    expect(again).toEqual({ ...first, created: false });
    const stored = loadRegression(first.file);
    expect(stored).toMatchObject({ kvfuzz: 'kvfuzz-regression/1', target: 'allocator', seed: 99, path: '3:1:0', program: ['alloc(8)', 'freeRow(0)'], campaign: { seed: 1, batch: 4, shard: '0/1' } });
    expect(Object.keys(stored.versions)).toEqual(expect.arrayContaining(['@kvfuzz/allocator-core', 'fast-check']));
    const testFile = first.file.replace(/\.json$/, '.test.ts');
    expect(existsSync(testFile)).toBe(true);
    expect(readFileSync(testFile, 'utf8')).toContain(`replayRegressionFile(new URL('./${first.signature}.json', import.meta.url))`);
  });

  it('replays a stored program: clean once fixed, throwing while it still fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    const clean = storeRegression('allocator', report(['alloc(8)', 'freeRow(0)'], 'fixed since'), { seed: 1, batch: 0, shard: '0/1' }, dir);
    expect(() => replayRegression(loadRegression(clean.file))).not.toThrow();
    const broken = storeRegression('allocator', report(["reject('doubleFree', 0, 1)", 'alloc(7)'], 'still broken'), { seed: 1, batch: 1, shard: '0/1' }, dir);
    expect(() => replayRegression(loadRegression(broken.file))).toThrow();
  });
});
