import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureReport } from '../../test/support/failure-report.js';
import { alloc, freeRow, reject } from '../models/allocator/program.js';
import { failureSignature, kSignatureReadableCharsMax } from './failure-signature.js';
import { regressionFiles, storeRegression } from './regression-store.js';
import { loadRegression, replayRegression } from './replay-regression.js';

const geometry = { kernelPageSize: 2, dcpSize: 2, poolPages: 4, needSort: false, checks: true };

describe('fuzz:regressions,store', () => {
  it('names a failure by its rule and its message without numbers', () => {
    expect(failureSignature('allocator', 'double-free', 'page 17 given back twice')).toBe(failureSignature('allocator', 'double-free', 'page 4 given back twice'));
    expect(failureSignature('allocator', 'double-free', 'page 17 given back twice')).not.toBe(failureSignature('allocator', 'leak', 'page 17 given back twice'));
    expect(failureSignature('allocator', 'KVFUZZ_SEGMENT', 'x')).toMatch(/^kvfuzz-segment-[0-9a-f]{10}$/);
  });

  it('keeps a signature a short, safe file name whatever the rule', () => {
    const long = failureSignature('allocator', `${'Very Long Rule '.repeat(40)}!`, 'x');
    expect(long).toMatch(/^[a-z0-9-]+-[0-9a-f]{10}$/);
    expect(long.length).toBeLessThanOrEqual(kSignatureReadableCharsMax + 11);
    expect(failureSignature('allocator', '../../\u001b[31m::error::', 'x')).toMatch(/^31m-error-[0-9a-f]{10}$/);
    expect(failureSignature('allocator', '!!!', 'x')).toMatch(/^failure-[0-9a-f]{10}$/);
    // The cut never leaves a trailing dash before the digest.
    expect(failureSignature('allocator', `${'a'.repeat(kSignatureReadableCharsMax - 1)} b`, 'x')).toMatch(new RegExp(`^a{${kSignatureReadableCharsMax - 1}}-[0-9a-f]{10}$`));
  });

  it('writes only the JSON record, its program as data, once per signature', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    const first = storeRegression('allocator', failureReport([alloc(8), freeRow(0)], geometry, 'page 3 given back twice', { seed: 99, path: '3:1:0' }), { seed: 1, batch: 4, shard: '0/1' }, dir);
    expect(first.created).toBe(true);
    const again = storeRegression('allocator', failureReport([alloc(4)], geometry, 'page 9 given back twice'), { seed: 2, batch: 0, shard: '0/1' }, dir);
    expect(again).toEqual({ ...first, created: false });
    expect(readdirSync(join(dir, 'allocator'))).toEqual([`${first.signature}.json`]);
    const json = JSON.parse(readFileSync(first.file, 'utf8')) as Record<string, unknown>;
    expect(json).toMatchObject({
      kvfuzz: 'kvfuzz-regression/2',
      target: 'allocator',
      seed: 99,
      path: '3:1:0',
      commands: [
        { op: 'alloc', args: [8] },
        { op: 'freeRow', args: [0] },
      ],
      program: ['alloc(8)', 'freeRow(0)'],
      campaign: { seed: 1, batch: 4, shard: '0/1' },
    });
    const stored = loadRegression(first.file);
    expect(stored.decoded.commands.map(String)).toEqual(['alloc(8)', 'freeRow(0)']);
    expect(Object.keys(stored.versions)).toEqual(expect.arrayContaining(['@kvfuzz/allocator-core', 'fast-check']));
    expect(regressionFiles(dir)).toEqual([first.file]);
  });

  it('replays the commands, never the printed program', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    const clean = storeRegression('allocator', failureReport([alloc(8), freeRow(0)], geometry, 'fixed since'), { seed: 1, batch: 0, shard: '0/1' }, dir);
    expect(() => replayRegression(loadRegression(clean.file))).not.toThrow();
    const broken = storeRegression('allocator', failureReport([reject('doubleFree', 0, 1), alloc(7)], geometry, 'still broken'), { seed: 1, batch: 1, shard: '0/1' }, dir);
    expect(() => replayRegression(loadRegression(broken.file))).toThrow(/alloc size 7 is not a multiple of the page size 4/);
    // A printed program that disagrees with the data is ignored.
    const json = JSON.parse(readFileSync(clean.file, 'utf8')) as Record<string, unknown>;
    writeFileSync(clean.file, JSON.stringify({ ...json, program: ['alloc(7)'] }));
    expect(() => replayRegression(loadRegression(clean.file))).not.toThrow();
  });

  it('refuses to store a failure whose commands carry no data', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    const report = failureReport([alloc(8)], geometry, 'x');
    const noData = { ...report, failure: report.failure === null ? null : { ...report.failure, commands: [] } };
    expect(() => storeRegression('allocator', noData, { seed: 1, batch: 0, shard: '0/1' }, dir)).toThrow(/carry no data/);
  });

  it('lists the JSON files of every target folder and any misplaced at the top', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-store-'));
    mkdirSync(join(dir, 'allocator'));
    mkdirSync(join(dir, 'prefix-cache'));
    writeFileSync(join(dir, 'allocator', 'b.json'), '{}');
    writeFileSync(join(dir, 'prefix-cache', 'a.json'), '{}');
    writeFileSync(join(dir, 'allocator', 'notes.md'), '');
    writeFileSync(join(dir, 'stray.json'), '{}');
    writeFileSync(join(dir, 'README.md'), '');
    expect(regressionFiles(dir)).toEqual([join(dir, 'allocator', 'b.json'), join(dir, 'prefix-cache', 'a.json'), join(dir, 'stray.json')]);
    expect(regressionFiles(join(dir, 'missing'))).toEqual([]);
  });
});
