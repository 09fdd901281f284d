import { describe, expect, it } from 'vitest';
import { decodePrefixCommands } from '../../src/models/prefix-cache/prefix-program.js';
import { formatPrefixFailure, runPrefixModel, runPrefixProgram } from '../../src/models/prefix-cache/run-prefix-model.js';
import { kPrefixCacheMutants } from './catalogue.js';

/** The bound: a planted bug is caught from a random seed within this. */
const kDetectMsMax = 10_000;

describe('fuzz:mutants,prefix-cache', () => {
  it('plants eight release-path bugs and three radix tree bugs', () => {
    expect(kPrefixCacheMutants.map((m) => m.name)).toEqual([
      'no-coalescing',
      'coalesce-across-gaps',
      'separate-plain-frees',
      'overalloc-kernel-aligned',
      'tail-from-eff',
      'unaligned-tail-kernel-floor',
      'swa-floor-unchecked',
      'finish-forgets-tail',
      'unlock-no-transfer',
      'split-drops-lock',
      'match-untruncated',
    ]);
  });

  // In-line allocator checks off: the ledger and the model's own checks must catch each bug.
  it.each(kPrefixCacheMutants.map((m) => [m.name, m] as const))('catches %s from a random seed within 10 s', (_name, mutant) => {
    const seed = (Math.random() * 0x7fffffff) | 0;
    const report = runPrefixModel({ cache: mutant.create, seed, numRuns: 1_000_000, timeLimitMs: kDetectMsMax, geometry: { ...mutant.geometry, checks: false } });
    const where = `seed ${seed}: ${formatPrefixFailure(report, mutant.name) || 'survived'}`;
    expect(report.failed, where).toBe(true);
    expect(report.detectMs ?? Infinity, where).toBeLessThan(kDetectMsMax);
    const failure = report.failure;
    if (failure === null) return;
    // The shrunk program, decoded from its data, replays the failure on its own.
    expect(() => runPrefixProgram(failure.geometry, decodePrefixCommands(failure.commands), mutant.create), where).toThrow();
  });
});
