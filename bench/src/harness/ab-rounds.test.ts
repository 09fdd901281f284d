import { describe, expect, it } from 'vitest';
import { syntheticCase } from '../test-support/synthetic.js';
import { syntheticChildren } from '../test-support/synthetic-child.js';
import { kCpuShareMin, kDisturbedRetriesMax, runAbRounds, type AbOptions } from './ab-rounds.js';
import type { BenchCase } from './bench-files.js';
import { kQuickSettings, type RunSettings } from './measure-settings.js';
import type { Pinning } from './pinning.js';

const pinning: Pinning = { used: false, cpu: null, prefix: [], note: 'not pinned: test' };
const settings: RunSettings = { ...kQuickSettings, measure: { warmupMs: 1, sliceMs: 1, slices: 3 }, rounds: { roundsMin: 6, roundsMax: 9, budgetSeconds: 1_000 } };
const inFile = (file: string, name: string): BenchCase => ({ ...syntheticCase(name), file });
const options = (start: AbOptions['startChild'], extra: Partial<AbOptions> = {}): AbOptions => ({ settings, pinning, seed: 3, margin: 0.03, resamples: 2_000, aa: false, startChild: start, ...extra });

describe('bench:harness,rounds', () => {
  it('isolation case: each variant gets a fresh child per case per round, holding that case alone', async () => {
    const children = syntheticChildren(() => 1);
    const cases = [inFile('a/x.bench.ts', 'a:x:1'), inFile('a/x.bench.ts', 'a:x:2'), inFile('b/y.bench.ts', 'b:y:1')];
    const outcome = await runAbRounds(cases, options(children.start));
    expect(outcome.roundsRun).toBe(6);
    expect(outcome.children).toBe(2 * 3 * 6);
    expect(children.starts.every((s) => s.cases.length === 1)).toBe(true);
    // Every case of every round has its own pair: a:x:2 never shares a child with a:x:1.
    expect(children.starts.filter((s) => s.cases[0]?.name === 'a:x:2')).toHaveLength(2 * 6);
    // Each pair is closed before the next case's children start.
    const log = children.log.filter((l) => l.startsWith('start') || l.startsWith('close'));
    for (let i = 0; i < log.length; i += 4) expect(log.slice(i, i + 4).map((l) => l.split(' ')[0])).toEqual(['start', 'start', 'close', 'close']);
    expect(outcome.cases.every((c) => c.rounds.length === 6)).toBe(true);
  });

  it('isolation file: each variant gets its own fresh child per file per round, and alternates them slice by slice', async () => {
    const children = syntheticChildren(() => 1);
    const cases = [inFile('a/x.bench.ts', 'a:x:1'), inFile('a/x.bench.ts', 'a:x:2'), inFile('b/y.bench.ts', 'b:y:1')];
    const outcome = await runAbRounds(cases, options(children.start, { settings: { ...settings, isolation: 'file' } }));
    expect(outcome.roundsRun).toBe(6);
    expect(outcome.stopReason).toBe('decided');
    expect(outcome.children).toBe(2 * 2 * 6);
    expect(children.starts.map((s) => s.variant).sort()).toEqual([...Array(12).fill('checks-off'), ...Array(12).fill('checks-on')]);
    // Each child is started, used for its file's cases and closed before the next file's children start.
    const firstFile = children.log.slice(0, children.log.indexOf('close checks-off') + 1);
    expect(firstFile.filter((l) => l.startsWith('start'))).toHaveLength(2);
    const measures = children.log.filter((l) => l.startsWith('measure'));
    // Slices come in pairs, one per variant, in both orders over the run.
    const pairs = Array.from({ length: measures.length / 2 }, (_, i) => `${measures[2 * i]?.split(' ')[1]}>${measures[2 * i + 1]?.split(' ')[1]}`);
    expect(new Set(pairs)).toEqual(new Set(['checks-off>checks-on', 'checks-on>checks-off']));
    expect(measures).toHaveLength(2 * settings.measure.slices * (2 + 1) * 6);
    expect(outcome.cases.every((c) => c.rounds.every((r) => Math.abs(r.ratio - 1) < 0.03))).toBe(true);
    expect(new Set(outcome.cases[0]?.rounds.map((r) => r.first))).toEqual(new Set(['checks-off', 'checks-on']));
  });

  it('gives inconclusive files more rounds, up to roundsMax, and stops decided files at roundsMin', async () => {
    // File a's checks cost 3% (undecidable at a 3% margin); file b's cost nothing.
    const children = syntheticChildren((name) => (name.startsWith('a:') ? 1.03 : 1), 5);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1'), inFile('b/y.bench.ts', 'b:y:1')], options(children.start));
    expect(outcome.stopReason).toBe('rounds-max');
    expect(outcome.cases.map((c) => c.rounds.length)).toEqual([9, 6]);
  });

  it('isolation case: stops each decided case at roundsMin, even when another case of its file is undecided', async () => {
    // a:x:1's checks cost 3% (undecidable at a 3% margin); a:x:2, in the same file, costs nothing.
    const children = syntheticChildren((name) => (name === 'a:x:1' ? 1.03 : 1), 5);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1'), inFile('a/x.bench.ts', 'a:x:2')], options(children.start));
    expect(outcome.stopReason).toBe('rounds-max');
    expect(outcome.cases.map((c) => c.rounds.length)).toEqual([9, 6]);
    expect(outcome.children).toBe(2 * (9 + 6));
  });

  it('isolation file: a file runs on while any of its cases is undecided', async () => {
    const children = syntheticChildren((name) => (name === 'a:x:1' ? 1.03 : 1), 5);
    const cases = [inFile('a/x.bench.ts', 'a:x:1'), inFile('a/x.bench.ts', 'a:x:2')];
    const outcome = await runAbRounds(cases, options(children.start, { settings: { ...settings, isolation: 'file' } }));
    expect(outcome.cases.map((c) => c.rounds.length)).toEqual([9, 9]);
  });

  it('a 10% cost fails, measured as the median of the slices', async () => {
    const children = syntheticChildren(() => 1.1);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], options(children.start));
    expect(outcome.cases[0]?.rounds.every((r) => Math.abs(r.ratio - 1.1) < 0.03)).toBe(true);
    expect(outcome.roundsRun).toBe(6);
  });

  it('stops at the time budget, but not before a verdict is possible', async () => {
    let clockMs = 0;
    const children = syntheticChildren(() => 1.03);
    const outcome = await runAbRounds(
      [inFile('a/x.bench.ts', 'a:x:1')],
      options(
        (s) => {
          clockMs += 300;
          return children.start(s);
        },
        { settings: { ...settings, rounds: { roundsMin: 6, roundsMax: 40, budgetSeconds: 3 } }, nowMs: () => clockMs },
      ),
    );
    expect(outcome.stopReason).toBe('budget');
    expect(outcome.roundsRun).toBe(5);
  });

  it('times a slice pair again when a child shared its core, at most twice, and records the share', async () => {
    // Slices 0–1 (round 1's first pair) disturbed once; slices 6–11 (round 2's first pair and both retries) all disturbed.
    const children = syntheticChildren(() => 1, 1, (i) => (i < 2 || (i >= 8 && i < 14) ? 0.5 : 1));
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], options(children.start));
    expect(outcome.retries).toBe(1 + kDisturbedRetriesMax);
    expect(outcome.cases[0]?.rounds.map((r) => r.cpuShareMin)).toEqual([1, 0.5, 1, 1, 1, 1]);
    expect(kCpuShareMin).toBeGreaterThan(0.5);
  });

  it('A/A calibration starts both children with checks off', async () => {
    const children = syntheticChildren(() => 2);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], options(children.start, { aa: true }));
    expect(children.starts.every((s) => s.aa)).toBe(true);
    expect(outcome.cases[0]?.rounds.every((r) => Math.abs(r.ratio - 1) < 0.03)).toBe(true);
  });
});
