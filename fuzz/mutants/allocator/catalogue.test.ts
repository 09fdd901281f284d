import { describe, expect, it } from 'vitest';
import { LedgerViolation } from '../../src/ledger/ledger-violation.js';
import { decodeAllocatorCommands } from '../../src/models/allocator/program.js';
import { formatAllocatorFailure as formatFailure, runAllocatorModel, runAllocatorProgram } from '../../src/models/allocator/run-allocator-model.js';
import { kAllocatorMutants } from './catalogue.js';

/** The bound: a planted bug is caught from a random seed within this. */
const kDetectMsMax = 10_000;

describe('fuzz:mutants,allocator', () => {
  it('plants at least eight bugs, each under its own name', () => {
    expect(kAllocatorMutants.length).toBeGreaterThanOrEqual(8);
    expect(new Set(kAllocatorMutants.map((m) => m.name)).size).toBe(kAllocatorMutants.length);
  });

  // In-line checks off: the ledger alone must catch every planted bug that checks off can show.
  // Checks on: every planted bug. A bug in what only checks on refuses (A24, A25) must still be
  // the ledger's catch; for the others the implementation's own refusal of a valid call (A18) or
  // its own broken assertion is a kill too.
  const cases = kAllocatorMutants.flatMap((m) => [...(m.checks === 'both' ? [[m.name, 'off', m] as const] : []), [m.name, 'on', m] as const]);
  it.each(cases)('catches %s with checks %s from a random seed within 10 s', (_name, checks, mutant) => {
    const seed = (Math.random() * 0x7fffffff) | 0;
    const report = runAllocatorModel({ provider: mutant.provider, mode: mutant.mode, seed, numRuns: 1_000_000, timeLimitMs: kDetectMsMax, geometry: { checks: checks === 'on' } });
    const where = `seed ${seed}: ${formatFailure(report, mutant.name) || 'survived'}`;
    expect(report.failed, where).toBe(true);
    expect(report.detectMs ?? Infinity, where).toBeLessThan(kDetectMsMax);
    const byLedger = checks === 'off' || mutant.checks === 'on';
    if (byLedger) expect(report.failure?.errorName, where).toBe('LedgerViolation');

    // The shrunk program, decoded from its data, replays the failure on its own.
    const failure = report.failure;
    if (failure === null) return;
    const replay = () => runAllocatorProgram(failure.geometry, decodeAllocatorCommands(failure.commands), mutant.provider, mutant.mode === 'exact');
    expect(replay, where).toThrow(byLedger ? LedgerViolation : Error);
  });
});
