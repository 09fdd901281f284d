import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostCycleWorkload } from '../host-pool/cycle-workload.js';
import { kRoundsForVerdictMin } from '../stats/verdict.js';
import { captureIo } from '../test-support/capture-io.js';
import { floorMain, kFloorSchema } from './floor-cli.js';

describe('bench:cli,floor', () => {
  it.each([
    [['--rounds', '0'], '--rounds 0 is not an integer in [1, 1000]'],
    [['--reps', '1.5'], '--reps 1.5 is not an integer in [1, 10000]'],
    [['--json', ''], '--json needs a file name'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], 'extra'],
  ])('%j exits 2 naming the bad value', (argv, message) => {
    const io = captureIo();
    expect(floorMain(argv, io)).toBe(2);
    expect(io.stderr()).toContain(message);
    expect(io.stderr()).toContain('pnpm bench:floor --help');
    expect(io.stdout()).toBe('');
  });

  it('--help prints the usage and exits 0', () => {
    const io = captureIo();
    expect(floorMain(['--help'], io)).toBe(0);
    expect(io.stdout()).toMatch(/^Usage: pnpm bench:floor/);
  });

  it('--quick measures the fresh pool at pages 1 and 512 and writes every point as JSON', () => {
    const io = captureIo();
    const json = join(mkdtempSync(join(tmpdir(), 'kvfuzz-floor-')), 'floor.json');
    const rounds = kRoundsForVerdictMin - 1;
    expect(floorMain(['--quick', '--rounds', String(rounds), '--reps', '3', '--no-pin', '--json', json], io)).toBe(0);
    const doc = JSON.parse(readFileSync(json, 'utf8'));
    expect(doc).toMatchObject({ schema: kFloorSchema, margin: 0.03, rounds, reps: 3, pinning: 'not pinned: --no-pin' });
    expect(doc.results.map((r: { name: string }) => r.name)).toEqual(['host-pool:alloc-free:alloc+free fresh 1×1', 'host-pool:alloc-free:alloc+free fresh 8×64']);
    for (const [r, geometry] of doc.results.map((r: unknown, i: number) => [r, i === 0 ? { dcp: 1, kernelPage: 1 } : { dcp: 8, kernelPage: 64 }] as const)) {
      // The pass reads exactly the slots one cycle frees: the whole mix.
      expect(r.slots).toBe(hostCycleWorkload(geometry).sizes.reduce((a, b) => a + b, 0));
      expect(r.ratio).toBeGreaterThanOrEqual(1);
      expect(r.ciLow).toBeLessThanOrEqual(r.ratio);
      expect(r.ciHigh).toBeGreaterThanOrEqual(r.ratio);
      expect(r.readNsPerSlot).toBeCloseTo(r.readNs / r.slots, 12);
      // Fewer rounds than a verdict needs: never pass or fail.
      expect(r.verdict).toBe('inconclusive');
      expect(r.rounds).toBe(rounds);
    }
    expect(io.stdout()).toContain(`floor: 2 points, ${rounds} rounds of 3 calls, margin 3%`);
    expect(io.stdout()).toContain(`wrote ${json}`);
  });
});
