import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LedgerViolation } from '../../ledger/ledger-violation.js';
import { storeRegression } from '../../regressions/regression-store.js';
import { loadRegression, replayRegression } from '../../regressions/replay-regression.js';
import { decode, decodeGpuCommands, extend, extendToCapacity, finish } from './gpu-program.js';
import { formatGpuKernelsFailure, runGpuKernelsModel, runGpuKernelsProgram } from './run-gpu-model.js';

// On the machine's WebGPU adapter (lavapipe in CI): a missing adapter fails these tests with
// NoAdapterError naming the fix; they never skip.
describe('fuzz:gpu-kernels,model', () => {
  it('runs the CPU allocator and the GPU kernels in lock-step on random runs without a failure', async () => {
    const seed = (Math.random() * 0x7fffffff) | 0;
    const report = await runGpuKernelsModel({ seed, numRuns: 60 });
    expect(report.failed, `seed ${seed}: ${formatGpuKernelsFailure(report)}`).toBe(false);
    expect(report.runs).toBe(60);
    expect(report.commands).toBeGreaterThan(60);
  });

  it('replays a printed program: DCP pages, unaligned prefixes, zero extends, a batch wider than the scan, the capacity edge, planted frees', async () => {
    const program = [
      extend([{ pick: null, tokens: 3 }, { pick: null, tokens: 0 }, { pick: null, tokens: 17 }], { padding: 0 }),
      extend([{ pick: 0, tokens: 2 }, { pick: 1, tokens: 0 }, { pick: null, tokens: 8 }], { padding: 290 }),
      decode([0, 1, 2, null]),
      finish(1, { again: [0, 0, 1], foreign: 'free-page' }),
      extendToCapacity({ pick: 0, short: true }),
      extendToCapacity({ pick: 0, short: false }),
      finish(0, { again: [], foreign: 'page-zero' }),
      finish(0, { again: [2], foreign: 'past-end' }),
    ];
    const printed = program.map((c) => c.toString());
    expect(printed[0]).toBe('extend([{ pick: null, tokens: 3 }, { pick: null, tokens: 0 }, { pick: null, tokens: 17 }], { padding: 0 })');
    expect(printed[3]).toBe("finish(1, { again: [0, 0, 1], foreign: 'free-page' })");
    const decoded = decodeGpuCommands(program.map((c) => c.toData()));
    expect(decoded.map((c) => c.toString())).toEqual(printed);
    const model = await runGpuKernelsProgram({ kernelPageSize: 2, dcpSize: 4, poolPages: 12, checks: true }, decoded);
    expect(model.executed).toBe(program.length);
    expect(model.ledger.freePageCount).toBe(12);
  });

  it('fails a program whose planted bug the comparison sees (the model can fail)', async () => {
    const program = [extend([{ pick: null, tokens: 7 }, { pick: null, tokens: 2 }], { padding: 0 })];
    await expect(runGpuKernelsProgram({ kernelPageSize: 2, dcpSize: 1, poolPages: 33, checks: false }, program, 'tail-first-page')).rejects.toThrow(
      /\[gpu-differs\] extend\(\[\{ pick: null, tokens: 7 \}, \{ pick: null, tokens: 2 \}\], \{ padding: 0 \}\): the GPU planExtend differs at request 0, its output 6: expected slot 8, got 2/,
    );
    await expect(runGpuKernelsProgram({ kernelPageSize: 1, dcpSize: 1, poolPages: 5, checks: false }, [extend([{ pick: null, tokens: 1 }], { padding: 0 }), finish(0, { again: [0], foreign: 'none' })], 'free-unchecked')).rejects.toThrow(
      LedgerViolation,
    );
  });

  it('stores a failure as a regression whose replay awaits the GPU', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-gpu-store-'));
    const commands = [extend([{ pick: null, tokens: 3 }, { pick: null, tokens: 9 }], { padding: 0 }), finish(0, { again: [0], foreign: 'page-zero' })];
    const failure = {
      path: '0:0',
      geometry: { kernelPageSize: 2, dcpSize: 2, poolPages: 6, checks: true },
      commands: commands.map((c) => c.toData()),
      program: commands.map(String),
      errorName: 'LedgerViolation',
      message: '[gpu-differs] fixed since',
      rule: 'gpu-differs',
      contractRule: null,
    };
    const stored = storeRegression('gpu-kernels', { failed: true, interrupted: false, runs: 1, commands: 2, elapsedMs: 1, seed: 3, detectMs: 1, failure }, { seed: 3, batch: 0, shard: '0/1' }, dir);
    const replay = replayRegression(loadRegression(stored.file));
    expect(replay).toBeInstanceOf(Promise);
    await expect(replay).resolves.toBeUndefined();
  });
});
