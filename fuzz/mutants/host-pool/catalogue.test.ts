import { describe, expect, it } from 'vitest';
import { decodeHiCacheCommands } from '../../src/models/hicache/hicache-program.js';
import { formatHiCacheFailure, runHiCacheModel, runHiCacheProgram } from '../../src/models/hicache/run-hicache-model.js';
import { kHostPoolMutants } from './catalogue.js';

const kDetectMsMax = 10_000;

describe('fuzz:mutants,host-pool', () => {
  it('plants three bugs in the HiCache tree and three in the host pool', () => {
    expect(kHostPoolMutants.map((m) => m.name)).toEqual(['insert-counts-revived', 'write-through-unlocked', 'evict-host-orphans', 'host-pool-unchecked', 'host-pool-first-fit', 'host-pool-no-extra-page']);
  });

  it.each(kHostPoolMutants.map((m) => [m.name, m] as const))('catches %s from a random seed within 10 s', (_name, mutant) => {
    const seed = (Math.random() * 0x7fffffff) | 0;
    const report = runHiCacheModel({ factories: mutant.factories, seed, numRuns: 1_000_000, timeLimitMs: kDetectMsMax, geometry: { ...mutant.geometry, checks: false } });
    const where = `seed ${seed}: ${formatHiCacheFailure(report, mutant.name) || 'survived'}`;
    expect(report.failed, where).toBe(true);
    expect(report.detectMs ?? Infinity, where).toBeLessThan(kDetectMsMax);
    const failure = report.failure;
    if (failure === null) return;
    expect(() => runHiCacheProgram(failure.geometry, decodeHiCacheCommands(failure.commands), mutant.factories), where).toThrow();
  });
});
