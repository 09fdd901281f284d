import { describe, expect, it } from 'vitest';
import { fixtureHistory, kFixturePoints } from '../history/history-fixture.js';
import { historyCharts } from './history-charts.js';

describe('bench:report,history-charts', () => {
  const data = historyCharts(fixtureHistory());
  const chart = (metric: string) => data.charts.find((c) => c.metric === metric);

  it('orders commits by commit date, then by when recorded', () => {
    expect(data.commits.map((c) => `${c.short} ${c.mode}`)).toEqual(['aaaaaaa quick', 'bbbbbbb quick', 'ccccccc quick', 'ccccccc full']);
  });

  it('one chart per metric, in sections, with a value (or null) per commit', () => {
    expect(data.charts.map((c) => `${c.group}:${c.metric}`)).toEqual(['ratio:a:x:one', 'ratio:a:x:two', 'fuzz:alpha', 'fuzz:beta', 'detect:m-killed', 'detect:m-survivor']);
    expect(Object.fromEntries(data.charts.map((c) => [c.metric, c.points]))).toEqual(kFixturePoints);
    expect(chart('a:x:two')?.values).toEqual([null, 1.2, 1.1, 1.02]);
    expect(chart('alpha')?.values).toEqual([4000, 5000, 5500, null]);
    expect(chart('m-killed')?.values).toEqual([null, 40, 25, null]);
  });

  it('ratios carry their interval and the margin line; survivors are marked at the budget', () => {
    const one = chart('a:x:one');
    expect(one?.low?.[0]).toBeCloseTo(1.05 * 0.98);
    expect(one?.high?.[0]).toBeCloseTo(1.05 * 1.02);
    expect(one?.reference).toEqual({ value: 1.03, label: 'margin 1.03' });
    expect(chart('m-survivor')?.survived).toEqual([null, 10_000, 10_000, null]);
    expect(chart('alpha')?.reference).toBeNull();
  });

  it('marks where the way of measuring changed: the isolation, then the layout', () => {
    expect(data.commits.map((c) => `${c.isolation} ${String(c.layout)}`)).toEqual(['file null', 'file null', 'case null', 'case modules']);
    expect(data.steps).toEqual([
      { index: 2, label: 'a child pair per case' },
      { index: 3, label: 'layout modules' },
    ]);
  });

  it('an empty history has no charts', () => {
    expect(historyCharts([])).toEqual({ commits: [], charts: [], steps: [] });
  });
});
