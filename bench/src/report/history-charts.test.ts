import { describe, expect, it } from 'vitest';
import { fixtureHistory, kFixturePoints } from '../history/history-fixture.js';
import { historyCharts } from './history-charts.js';

describe('bench:report,history-charts', () => {
  const data = historyCharts(fixtureHistory());
  const chart = (metric: string) => data.charts.find((c) => c.metric === metric);

  it('orders commits by commit date, then by when recorded, and says what kind of record each is', () => {
    expect(data.commits.map((c) => `${c.short} ${c.mode} ${c.kind}`)).toEqual(['aaaaaaa quick dirty', 'bbbbbbb full full', 'ccccccc quick quick', 'ddddddd full full']);
  });

  it('one chart per metric, in sections; full runs of committed code are the main series, quick and dirty records apart', () => {
    expect(data.charts.map((c) => `${c.group}:${c.metric}`)).toEqual(['ratio:a:x:one', 'ratio:a:x:two', 'fuzz:alpha', 'fuzz:beta', 'detect:m-killed', 'detect:m-survivor']);
    expect(Object.fromEntries(data.charts.map((c) => [c.metric, c.points]))).toEqual(kFixturePoints);
    expect(chart('a:x:one')?.values).toEqual([null, 1.01, null, 1.0]);
    expect(chart('a:x:one')?.quick).toEqual([null, null, 0.99, null]);
    expect(chart('a:x:one')?.dirty).toEqual([2.69, null, null, null]);
    expect(chart('a:x:two')?.values).toEqual([null, 1.2, null, 1.02]);
    // Fuzz and detect have no quick mode: every committed record is main, the dirty one apart.
    expect(chart('alpha')?.values).toEqual([null, 5000, 5500, null]);
    expect(chart('alpha')?.quick).toBeNull();
    expect(chart('alpha')?.dirty).toEqual([4000, null, null, null]);
    expect(chart('m-killed')?.values).toEqual([null, 40, 25, null]);
  });

  it('the y axis is set by the main series and the margin: the outlier dirty quick record (2.69) does not stretch it', () => {
    const [lo, hi] = chart('a:x:one')?.yRange ?? [0, 0];
    expect(hi).toBeLessThan(1.2);
    expect(lo).toBeLessThan(0.99);
    expect(hi).toBeGreaterThan(1.03);
    // Every main point lies inside its range.
    for (const c of data.charts) for (const v of c.values) if (v !== null) expect(v >= c.yRange[0] && v <= c.yRange[1], `${c.metric} ${v}`).toBe(true);
  });

  it('ratios carry their interval, the margin line and whether they gate; survivors are marked at the budget', () => {
    const one = chart('a:x:one');
    expect(one?.low?.[1]).toBeCloseTo(1.01 * 0.98);
    expect(one?.high?.[1]).toBeCloseTo(1.01 * 1.02);
    expect(one?.low?.[0]).toBeNull();
    expect(one?.reference).toEqual({ value: 1.03, label: 'margin 1.03' });
    expect(one?.gated).toBe(true);
    expect(chart('a:x:two')?.gated).toBe(false);
    expect(chart('a:x:two')?.title).toMatch(/\(informational\)$/);
    expect(chart('m-survivor')?.survived).toEqual([null, 10_000, 10_000, null]);
    expect(chart('alpha')?.reference).toBeNull();
  });

  it('counts the gated verdicts of every full run of committed code, for the summary chart', () => {
    // bbbbbbb: a:x:one 1.01 inconclusive, a:x:two 1.2 fail; ddddddd: a:x:one 1.0 pass (a:x:two informational).
    expect(data.verdicts).toEqual({ at: [1, 3], pass: [0, 1], fail: [1, 0], inconclusive: [1, 0] });
  });

  it('marks where the way of measuring changed: the isolation, then the layout, the intervals, the round ratios and the looks', () => {
    expect(data.commits.map((c) => `${c.isolation} ${String(c.layout)} ${c.interval} ${c.roundRatio} ${String(c.looks)}`)).toEqual([
      'file null bootstrap medians null',
      'file null bootstrap medians null',
      'case null bootstrap medians 10,20',
      'case modules order-statistic slice-pairs 10,20,40',
    ]);
    // Record 2 names no looks, so record 3's first looks are no step.
    expect(data.steps).toEqual([
      { index: 2, label: 'a child pair per case' },
      { index: 3, label: 'layout modules, order-statistic intervals, round ratios from slice-pairs, looks at 10, 20, 40 rounds' },
    ]);
  });

  it('an empty history has no charts', () => {
    expect(historyCharts([])).toEqual({ commits: [], verdicts: { at: [], pass: [], fail: [], inconclusive: [] }, charts: [], steps: [] });
  });
});
