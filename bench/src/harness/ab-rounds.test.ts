import { describe, expect, it } from 'vitest';
import { syntheticCase } from '../test-support/synthetic.js';
import { syntheticChildren } from '../test-support/synthetic-child.js';
import { kCpuShareMin, kDisturbedRetriesMax, runAbRounds, type AbOptions } from './ab-rounds.js';
import type { BenchCase } from './bench-files.js';
import type { CaseStats, ChildPort, ChildStart } from './child-protocol.js';
import { kQuickSettings, type RunSettings } from './measure-settings.js';
import type { Pinning } from './pinning.js';

const pinning: Pinning = { used: false, cpu: null, prefix: [], note: 'not pinned: test' };
// Looks at 7 and 14 rounds, each at 97.5%: 7 rounds is the fewest that can decide.
const settings: RunSettings = { ...kQuickSettings, measure: { warmupMs: 1, sliceMs: 1, slices: 3 }, rounds: { roundsMin: 7, roundsMax: 14, budgetSeconds: 1_000 } };
const inFile = (file: string, name: string): BenchCase => ({ ...syntheticCase(name), file });
const options = (start: AbOptions['startChild'], extra: Partial<AbOptions> = {}): AbOptions => ({ settings, pinning, seed: 3, margin: 0.03, aa: false, context: { kvBytesPerToken: 12_288 }, startChild: start, ...extra });

describe('bench:harness,rounds', () => {
  it('each variant gets a fresh child per case per round, holding that case alone, with the run context', async () => {
    const children = syntheticChildren(() => 1);
    const cases = [inFile('a/x.bench.ts', 'a:x:1'), inFile('a/x.bench.ts', 'a:x:2'), inFile('b/y.bench.ts', 'b:y:1')];
    const outcome = await runAbRounds(cases, options(children.start));
    expect(outcome.roundsRun).toBe(7);
    expect(outcome.stopReason).toBe('decided');
    expect(outcome.children).toBe(2 * 3 * 7);
    expect(children.starts.every((s) => s.cases.length === 1 && s.context.kvBytesPerToken === 12_288)).toBe(true);
    // Every case of every round has its own pair: a:x:2 never shares a child with a:x:1.
    expect(children.starts.filter((s) => s.cases[0]?.name === 'a:x:2')).toHaveLength(2 * 7);
    // Each pair is closed before the next case's children start.
    const log = children.log.filter((l) => l.startsWith('start') || l.startsWith('close'));
    for (let i = 0; i < log.length; i += 4) expect(log.slice(i, i + 4).map((l) => l.split(' ')[0])).toEqual(['start', 'start', 'close', 'close']);
    expect(outcome.cases.every((c) => c.rounds.length === 7)).toBe(true);
  });

  it('alternates the two children slice by slice, in both orders over the run', async () => {
    const children = syntheticChildren(() => 1);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], options(children.start));
    const measures = children.log.filter((l) => l.startsWith('measure'));
    const pairs = Array.from({ length: measures.length / 2 }, (_, i) => `${measures[2 * i]?.split(' ')[1]}>${measures[2 * i + 1]?.split(' ')[1]}`);
    expect(new Set(pairs)).toEqual(new Set(['checks-off>checks-on', 'checks-on>checks-off']));
    expect(measures).toHaveLength(2 * settings.measure.slices * 7);
    expect(outcome.cases[0]?.rounds.every((r) => Math.abs(r.ratio - 1) < 0.03)).toBe(true);
    expect(new Set(outcome.cases[0]?.rounds.map((r) => r.first))).toEqual(new Set(['checks-off', 'checks-on']));
  });

  it('stops a decided case at the first look and gives an undecided one rounds up to the last look', async () => {
    // a:x:1's checks cost 3% (undecidable at a 3% margin); a:x:2, in the same file, costs nothing.
    const children = syntheticChildren((name) => (name === 'a:x:1' ? 1.03 : 1), 5);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1'), inFile('a/x.bench.ts', 'a:x:2')], options(children.start));
    expect(outcome.stopReason).toBe('rounds-max');
    expect(outcome.cases.map((c) => c.rounds.length)).toEqual([14, 7]);
    expect(outcome.children).toBe(2 * (14 + 7));
  });

  it('reads verdicts only at looks: a case decided between looks runs on to the next one', async () => {
    // Looks at 7, 14, 28. Round 1 of a:x:1 costs 10%, the rest nothing. At 7 rounds the interval
    // is [min, max] (undecided); from 12 rounds on it drops the extreme round and would pass —
    // but the case stops at 14, the next look.
    let round = 0;
    const children = syntheticChildren(() => (round <= 1 ? 1.1 : 1.0), 7);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], {
      ...options(children.start),
      settings: { ...settings, rounds: { roundsMin: 7, roundsMax: 28, budgetSeconds: 1_000 } },
      onProgress: (p) => (round = p.round),
    });
    expect(outcome.cases[0]?.rounds).toHaveLength(14);
    expect(outcome.stopReason).toBe('decided');
  });

  it("a round's ratio is the median of its slice pairs' ratios, not the ratio of the medians", async () => {
    // The i-th slices of the two children form pair i: ratios 1.5, 1.0, 1.1 (median 1.1), where
    // the medians of each child's slices (2000 and 2000) would say 1.0.
    const slicesOf = { 'checks-off': [1000, 2000, 3000], 'checks-on': [1500, 2000, 3300] };
    const start = (s: ChildStart): Promise<ChildPort> => {
      let i = 0;
      const at = (ns: number): CaseStats => ({ p50Ns: ns, p25Ns: ns, p75Ns: ns, minNs: ns, avgNs: ns, samples: 12, calls: 12, cpuShare: 1 });
      return Promise.resolve({
        checks: s.variant === 'checks-on',
        empty: at(0.2),
        setup: () => Promise.resolve({ ms: 1, calls: 16, optimized: true }),
        measure: () => Promise.resolve(at(slicesOf[s.variant][i++ % 3] as number)),
        close: () => Promise.resolve(),
      });
    };
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], options(start));
    const first = outcome.cases[0]?.rounds[0];
    expect(first?.ratio).toBeCloseTo(1.1, 12);
    expect([first?.offNs, first?.onNs]).toEqual([2000, 2000]);
  });

  it('a 10% cost fails at the first look, measured as the median of the slices', async () => {
    const children = syntheticChildren(() => 1.1);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], options(children.start));
    expect(outcome.cases[0]?.rounds.every((r) => Math.abs(r.ratio - 1.1) < 0.03)).toBe(true);
    expect(outcome.roundsRun).toBe(7);
  });

  it('stops at the time budget, but never before the first look', async () => {
    let clockMs = 0;
    const children = syntheticChildren(() => 1.03);
    const outcome = await runAbRounds(
      [inFile('a/x.bench.ts', 'a:x:1')],
      options(
        (s) => {
          clockMs += 300;
          return children.start(s);
        },
        { settings: { ...settings, rounds: { roundsMin: 7, roundsMax: 40, budgetSeconds: 1 } }, nowMs: () => clockMs },
      ),
    );
    expect(outcome.stopReason).toBe('budget');
    expect(outcome.roundsRun).toBe(7);
  });

  it('times a slice pair again when a child shared its core, at most twice, and records the share', async () => {
    // Slices 0–1 (round 1's first pair) disturbed once; slices 6–11 (round 2's first pair and both retries) all disturbed.
    const children = syntheticChildren(() => 1, 1, (i) => (i < 2 || (i >= 8 && i < 14) ? 0.5 : 1));
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], options(children.start));
    expect(outcome.retries).toBe(1 + kDisturbedRetriesMax);
    expect(outcome.cases[0]?.rounds.map((r) => r.cpuShareMin)).toEqual([1, 0.5, 1, 1, 1, 1, 1]);
    expect(kCpuShareMin).toBeGreaterThan(0.5);
  });

  it('A/A calibration starts both children with checks off', async () => {
    const children = syntheticChildren(() => 2);
    const outcome = await runAbRounds([inFile('a/x.bench.ts', 'a:x:1')], options(children.start, { aa: true }));
    expect(children.starts.every((s) => s.aa)).toBe(true);
    expect(outcome.cases[0]?.rounds.every((r) => Math.abs(r.ratio - 1) < 0.03)).toBe(true);
  });
});
