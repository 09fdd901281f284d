import { describe, expect, it } from 'vitest';
import { LedgerViolation } from '../../src/ledger/ledger-violation.js';
import { decodeGpuCommands } from '../../src/models/gpu-kernels/gpu-program.js';
import { formatGpuKernelsFailure, runGpuKernelsModel, runGpuKernelsProgram } from '../../src/models/gpu-kernels/run-gpu-model.js';
import { kGpuKernelMutants } from './catalogue.js';

/** The bound, as for the other models: a planted bug is caught from a random seed within this (typically in under 100 ms). */
const kDetectMsMax = 10_000;

// On the machine's WebGPU adapter (lavapipe in CI): a missing adapter fails these tests with
// NoAdapterError naming the fix; they never skip.
describe('fuzz:mutants,gpu-kernels', () => {
  it('plants the extend layout, page count and capacity bugs and the unchecked batch free', () => {
    expect(kGpuKernelMutants.map((m) => m.name)).toEqual(['cursor-inclusive', 'tail-first-page', 'part1-unbounded', 'page-count-floor', 'capacity-unchecked', 'free-unchecked']);
    expect(new Set(kGpuKernelMutants.map((m) => m.name)).size).toBe(kGpuKernelMutants.length);
  });

  // In-line CPU allocator checks off: the lock-step comparison and the ledger catch each bug.
  it.each(kGpuKernelMutants.map((m) => [m.name, m] as const))('the lock-step model catches %s from a random seed', async (_name, mutant) => {
    const seed = (Math.random() * 0x7fffffff) | 0;
    const report = await runGpuKernelsModel({ bug: mutant.name, seed, numRuns: 1_000_000, timeLimitMs: kDetectMsMax, geometry: { checks: false } });
    const where = `seed ${seed}: ${formatGpuKernelsFailure(report, mutant.name) || 'survived'}`;
    expect(report.failed, where).toBe(true);
    expect(report.detectMs ?? Infinity, where).toBeLessThan(kDetectMsMax);
    expect(report.failure?.errorName, where).toBe('LedgerViolation');

    // The shrunk program, decoded from its data, replays the failure on its own — and runs clean on the correct kernels.
    const failure = report.failure;
    if (failure === null) return;
    await expect(runGpuKernelsProgram(failure.geometry, decodeGpuCommands(failure.commands), mutant.name), where).rejects.toThrow(LedgerViolation);
    await expect(runGpuKernelsProgram(failure.geometry, decodeGpuCommands(failure.commands)), where).resolves.toBeDefined();
  });
});
