import { DoubleFreeError, SegmentError } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { LedgerViolation } from '../../src/ledger/ledger-violation.js';
import type { PrefixGeometry } from '../../src/models/prefix-cache/geometry.js';
import { admit, finish, prefill } from '../../src/models/prefix-cache/prefix-program.js';
import { formatPrefixFailure, runPrefixModel, runPrefixProgram } from '../../src/models/prefix-cache/run-prefix-model.js';
import { NoCoalescing, SeparatePlainFrees, TailFromEff } from './cache-mutants.js';

/** Production: kernel page 64 × DCP 8 = allocator page 512; a 1100-token request; a Mamba cap at 576 = 9 × 64. */
const production: PrefixGeometry = { kernelPageSize: 64, dcpSize: 8, poolPages: 8, rowCount: 2, needSort: false, checks: true, finishPath: 'unified', evictionPolicy: 'lru', groupedFinish: false };
/** `{ cap: 'kernel', n: 1 }` resolves to 1 allocator page + 1 kernel page = 576 here. */
const cap576 = finish(0, { cap: 'kernel', n: 1 }, { insert: true });

describe('prefix-cache:finish,seam', () => {
  it.each([
    ['cacheProtectedLen 0', [prefill(0, 1100)]],
    ['a protected prefix of 512', [prefill(0, 600), prefill(0, 500)]],
    ['a protected prefix of 1024 (cap below it)', [prefill(0, 1050), prefill(0, 50)]],
  ])('the fixed cache frees every page exactly once with %s', (_name, prefills) => {
    const m = runPrefixProgram(production, [admit({ prefix: 0, shared: 0, own: 1100, extraKey: null }), ...prefills, cap576]);
    expect(m.ledger.freePageCount).toBe(production.poolPages);
  });

  it('without coalescing the seam is the seed crash: "segment at 576 shares a page with the one ending at 576"', () => {
    const run = () => runPrefixProgram(production, [admit({ prefix: 0, shared: 0, own: 1100, extraKey: null }), prefill(0, 1100), cap576], (c) => new NoCoalescing(c));
    expect(run).toThrow(SegmentError);
    expect(run).toThrow('segment at 576 shares a page with the one ending at 576');
  });

  it.each([true, false])('as two plain frees page b is released twice (allocator checks %s: the ledger or the in-line check sees it)', (checks) => {
    const run = () => runPrefixProgram({ ...production, checks }, [admit({ prefix: 0, shared: 0, own: 1100, extraKey: null }), prefill(0, 1100), cap576], (c) => new SeparatePlainFrees(c));
    expect(run).toThrow(checks ? DoubleFreeError : LedgerViolation);
  });

  it('inside a free group the allocator would dedupe the second release, and the ledger still sees it', () => {
    const run = () =>
      runPrefixProgram({ ...production, checks: false, groupedFinish: true }, [admit({ prefix: 0, shared: 0, own: 1100, extraKey: null }), prefill(0, 1100), cap576], (c) => new SeparatePlainFrees(c));
    expect(run).toThrow(/\[double-free\] free gives back page \d+, which is already given back in this free group/);
  });

  it('a truncation tail from eff under a protected prefix frees tree-owned rows (cap 512 under protected 1024)', () => {
    const program = [admit({ prefix: 0, shared: 0, own: 1100, extraKey: null }), prefill(0, 1050), prefill(0, 50), finish(0, { cap: 'page', n: 1 }, { insert: true })];
    expect(runPrefixProgram({ ...production, checks: false }, program).ledger.freePageCount).toBe(production.poolPages);
    expect(() => runPrefixProgram({ ...production, checks: false }, program, (c) => new TailFromEff(c))).toThrow(/\[double-free\]/);
  });
});

describe('prefix-cache:seed-bug,found', () => {
  it('finds the seam from random seeds: median under 2 s over 20 seeds, shrunk to at most 6 commands', () => {
    const detectMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const seed = (Math.random() * 0x7fffffff) | 0;
      const report = runPrefixModel({ cache: (c) => new NoCoalescing(c), seed, numRuns: 1_000_000, timeLimitMs: 10_000, geometry: { checks: false } });
      const where = `seed ${seed}: ${formatPrefixFailure(report, 'no-coalescing') || 'survived'}`;
      expect(report.failed, where).toBe(true);
      expect(report.failure?.program.length ?? Infinity, where).toBeLessThanOrEqual(6);
      expect(report.failure?.message, where).toMatch(/segment at \d+ shares a page with the one ending at \d+/);
      detectMs.push(report.detectMs ?? Infinity);
    }
    detectMs.sort((a, b) => a - b);
    const median = ((detectMs[9] as number) + (detectMs[10] as number)) / 2;
    console.log(`seed bug: median time to first failure ${median.toFixed(0)} ms over 20 seeds (min ${detectMs[0]?.toFixed(0)}, max ${detectMs[19]?.toFixed(0)})`);
    expect(median).toBeLessThan(2000);
  });
});
