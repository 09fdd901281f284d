import { describe, expect, it } from 'vitest';
import { LedgerViolation } from '../../src/ledger/ledger-violation.js';
import { decodeAllocatorCommands } from '../../src/models/allocator/program.js';
import { formatAllocatorFailure as formatFailure, runAllocatorModel, runAllocatorProgram } from '../../src/models/allocator/run-allocator-model.js';
import { kAllocatorMutants, type AllocatorMutant } from './catalogue.js';

/** The bound: a planted bug is caught from a random seed within this. */
const kDetectMsMax = 10_000;

/** How long a bug of what only checks on refuse runs with checks off, where it must stay inert. */
const kInertMsMax = 1_500;

function runModel(mutant: AllocatorMutant, checks: boolean, timeLimitMs: number) {
  const seed = (Math.random() * 0x7fffffff) | 0;
  const report = runAllocatorModel({ provider: mutant.provider, mode: mutant.mode, seed, numRuns: 1_000_000, timeLimitMs, geometry: { checks } });
  return { report, where: `seed ${seed}: ${formatFailure(report, mutant.name) || 'survived'}` };
}

describe('fuzz:mutants,allocator', () => {
  it('plants at least eight bugs, each under its own name', () => {
    expect(kAllocatorMutants.length).toBeGreaterThanOrEqual(8);
    expect(new Set(kAllocatorMutants.map((m) => m.name)).size).toBe(kAllocatorMutants.length);
  });

  // Every planted bug runs with the in-line checks off and on. Off: the ledger alone must catch
  // every bug that checks off can show. On: the model must catch every bug, unless the in-line
  // check refuses each call that shows it first (`caughtByCheck`, asserted below). A bug in what
  // only checks on refuse (A24, A25) must still be the ledger's catch; for the others the
  // implementation's own refusal of a valid call (A18) or its own broken assertion is a kill too.
  const byModel = kAllocatorMutants.flatMap((m) => [
    ...(m.checks === 'both' ? [[m.name, 'off', m] as const] : []),
    ...(m.caughtByCheck === undefined ? [[m.name, 'on', m] as const] : []),
  ]);
  it.each(byModel)('catches %s with checks %s from a random seed within 10 s', (_name, checks, mutant) => {
    const { report, where } = runModel(mutant, checks === 'on', kDetectMsMax);
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

  const byCheck = kAllocatorMutants.filter((m) => m.caughtByCheck !== undefined).map((m) => [m.name, m] as const);
  it.each(byCheck)('catches %s with checks on by the in-line check: the call that shows it with checks off is refused', (_name, mutant) => {
    const trigger = mutant.caughtByCheck!;
    const unchecked = mutant.provider.create({ ...trigger.config, checks: false });
    expect(trigger.setUp(unchecked)).not.toThrow();
    const checked = mutant.provider.create({ ...trigger.config, checks: true });
    const call = trigger.setUp(checked);
    const before = checked.backupState();
    expect(call).toThrow(expect.objectContaining({ name: trigger.refusedWith }));
    expect(checked.backupState()).toEqual(before);
  });

  // A bug in what only checks on refuse lives in checked code alone: with checks off it is inert.
  const onlyOn = kAllocatorMutants.filter((m) => m.checks === 'on').map((m) => [m.name, m] as const);
  it.each(onlyOn)('runs %s with checks off too, where its planted code is inert and the model passes', (_name, mutant) => {
    const { report, where } = runModel(mutant, false, kInertMsMax);
    expect(report.failed, where).toBe(false);
  });
});
