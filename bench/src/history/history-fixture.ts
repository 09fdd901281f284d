/**
 * Test support: small input documents in the shapes `pnpm bench --json`, `pnpm fuzz --json` and
 * `pnpm fuzz --kill-table --json` write, and a three-commit history whose chart point counts
 * are known. Only the fields the history reads are filled in.
 *
 * @internal
 * @packageDocumentation
 */
import { kHistorySchema, type CommitInfo, type HistoryRecord } from './types.js';

/** A fake 40-hex sha made of one digit repeated. */
export function fakeSha(digit: string): string {
  return digit.repeat(40);
}

/** A commit on day `day` of November 2026. */
export function fakeCommit(digit: string, day: number, dirty = false): CommitInfo {
  return { sha: fakeSha(digit), date: `2026-11-${String(day).padStart(2, '0')}T10:00:00+00:00`, subject: `commit ${digit}`, dirty };
}

/** A `bench/1` report with one ratio per entry of `ratios` ([name, ratio]; interval ±2%). */
export function fixtureBenchReport(ratios: readonly (readonly [string, number])[], mode: 'quick' | 'full' = 'quick'): Record<string, unknown> {
  return {
    kvfuzz: 'bench/1',
    createdAt: '2026-11-29T11:00:00.000Z',
    mode,
    aa: false,
    filter: null,
    settings: { margin: 0.03, confidence: 0.95 },
    machine: { cpu: { model: 'Test CPU', cores: 2, speedMHz: 2000 }, os: { platform: 'linux', release: '6.1.0', arch: 'x64' }, node: 'v20.19.0', v8: '11', mitata: '1.0.34', taskset: { used: true, cpu: 0, note: 'pinned' } },
    ratios: ratios.map(([name, ratio]) => ({ name, ratio, ciLow: ratio * 0.98, ciHigh: ratio * 1.02, verdict: ratio * 1.02 < 1.03 ? 'pass' : ratio * 0.98 > 1.03 ? 'fail' : 'inconclusive', rounds: 5 })),
    benches: [],
    warnings: [],
  };
}

/** A `fuzz-campaign/1` document with one target per entry ([target, commands, runs] in 10 s). */
export function fixtureFuzzCampaign(targets: readonly (readonly [string, number, number])[]): Record<string, unknown> {
  return {
    kvfuzz: 'fuzz-campaign/1',
    seed: 7,
    shard: '0/1',
    workers: 2,
    timeSeconds: 20,
    targets: targets.map(([target, commands, runs]) => ({ target, mutant: null, mode: 'contract', runs, commands, batches: 3, elapsedMs: 10_000, commandsPerSecond: commands / 10, failed: false, detectMs: null, failure: null })),
  };
}

/** A `kill-table/1` document; a mutant with `detectMs` null survived. */
export function fixtureKillTable(rows: readonly (readonly [string, string, number | null])[]): Record<string, unknown> {
  return {
    kvfuzz: 'kill-table/1',
    seed: 9,
    timePerMutantSeconds: 10,
    rows: rows.map(([mutant, target, detectMs]) => ({ target, mutant, mode: 'contract', killed: detectMs !== null, detectMs, shrunkLength: detectMs === null ? null : 3, rule: detectMs === null ? null : 'ledger', seed: 1 })),
  };
}

/** The fixture's verdict rule: the interval is the ratio ± 2%, judged at the 3% margin. */
function fixtureVerdict(ratio: number): 'pass' | 'fail' | 'inconclusive' {
  return ratio * 1.02 < 1.03 ? 'pass' : ratio * 0.98 > 1.03 ? 'fail' : 'inconclusive';
}

function record(
  commit: CommitInfo,
  mode: 'quick' | 'full',
  ratios: readonly (readonly [string, number, boolean?])[],
  fuzz: HistoryRecord['fuzz'],
  killTable: HistoryRecord['killTable'],
  method: Pick<HistoryRecord, 'isolation' | 'layout' | 'interval' | 'roundRatio' | 'looks'> = {},
): HistoryRecord {
  return {
    kvfuzz: kHistorySchema,
    commit,
    recordedAt: commit.date,
    benchCreatedAt: commit.date,
    mode,
    filter: null,
    ...method,
    margin: 0.03,
    confidence: 0.95,
    machine: { cpu: 'Test CPU', cores: 2, node: 'v20.19.0', os: 'linux 6.1.0 x64', pinned: true },
    ratios: ratios.map(([name, ratio, informational]) => ({ name, ratio, ciLow: ratio * 0.98, ciHigh: ratio * 1.02, verdict: fixtureVerdict(ratio), rounds: 5, ...(informational === true ? { informational } : {}) })),
    fuzz,
    killTable,
  };
}

const fuzz = (rates: readonly (readonly [string, number])[]): HistoryRecord['fuzz'] => ({
  seed: 1,
  workers: 2,
  timeSeconds: 20,
  targets: rates.map(([target, commandsPerSecond]) => ({ target, runs: 100, commands: commandsPerSecond * 10, elapsedMs: 10_000, commandsPerSecond, runsPerSecond: 10, failed: false })),
});

/**
 * Four records of four commits, written out of commit order (the report sorts them):
 * 1. a quick run with uncommitted changes whose ratio `a:x:one` is an outlier (2.69, as the real
 *    history's first record): it must not stretch the y axis;
 * 2. a full run (ratios `a:x:one`, `a:x:two`), fuzz target `alpha`, mutant `m-killed` detected;
 * 3. a quick run of committed code, a child pair per case from here on, `alpha` and `beta`, the
 *    first to name its looks (10 and 20 rounds);
 * 4. a full run in the modules layout with order-statistic intervals, slice-pair round ratios and
 *    looks at 10, 20 and 40 rounds, `a:x:two` informational.
 * Method steps: before 3 (isolation: record 2 names no looks, so none is drawn for them), before 4
 * (layout, intervals, round ratios, looks). Main-series points (full
 * runs of committed code for ratios, committed records for fuzz and detect) in
 * {@link kFixturePoints}; `m-survivor` survived every budget.
 */
export function fixtureHistory(): HistoryRecord[] {
  const killTable = (killedMs: number): HistoryRecord['killTable'] => ({
    seed: 1,
    timePerMutantSeconds: 10,
    mutants: [
      { mutant: 'm-killed', target: 'alpha', mode: 'contract', killed: true, detectMs: killedMs },
      { mutant: 'm-survivor', target: 'alpha', mode: 'contract', killed: false, detectMs: null },
    ],
  });
  return [
    record(fakeCommit('b', 2), 'full', [['a:x:one', 1.01], ['a:x:two', 1.2]], fuzz([['alpha', 5000]]), killTable(40)),
    record(fakeCommit('a', 1, true), 'quick', [['a:x:one', 2.69]], fuzz([['alpha', 4000]]), null),
    record(fakeCommit('c', 3), 'quick', [['a:x:one', 0.99], ['a:x:two', 1.1]], fuzz([['alpha', 5500], ['beta', 9000]]), killTable(25), { isolation: 'case', looks: [10, 20] }),
    record(fakeCommit('d', 4), 'full', [['a:x:one', 1.0], ['a:x:two', 1.02, true]], null, null, { isolation: 'case', layout: 'modules', interval: 'order-statistic', roundRatio: 'slice-pairs', looks: [10, 20, 40] }),
  ];
}

/** The main-series point counts of {@link fixtureHistory}, by chart metric. */
export const kFixturePoints: Readonly<Record<string, number>> = { 'a:x:one': 2, 'a:x:two': 2, alpha: 2, beta: 1, 'm-killed': 2, 'm-survivor': 0 };
