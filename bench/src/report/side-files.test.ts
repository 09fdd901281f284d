import { describe, expect, it } from 'vitest';
import { syntheticReport, syntheticRounds } from '../test-support/synthetic.js';
import { bencherMetricFormat, githubActionBenchmark, kBencherMeasure, sideFilePaths } from './side-files.js';

const report = syntheticReport([
  { name: 'pkg:op:a 1', rounds: syntheticRounds(10, 1.0, 0.01, 1) },
  { name: 'pkg:op:b 2', rounds: syntheticRounds(10, 1.2, 0.01, 2) },
]);

describe('bench:report,side-files', () => {
  it('github-action-benchmark customSmallerIsBetter: [{ name, unit, value, range, extra }] per ratio', () => {
    const entries = githubActionBenchmark(report);
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(['extra', 'name', 'range', 'unit', 'value']);
      expect(typeof e.name).toBe('string');
      expect(e.unit).toBe('ratio');
      expect(typeof e.value).toBe('number');
      expect(e.range).toMatch(/^±\d/);
      expect(e.extra).toMatch(/^95% CI \[\d\.\d{4}, \d\.\d{4}\]; (pass|fail|inconclusive) at margin 0\.03; 10 rounds; quick$/);
    }
    expect(entries[0]?.name).toBe('pkg:op:a 1 (checks-on / checks-off)');
    expect(entries[1]?.value).toBeCloseTo(1.2, 2);
  });

  it('Bencher Metric Format: { benchmark: { checks-ratio: { value, lower_value, upper_value } } }', () => {
    const bmf = bencherMetricFormat(report);
    expect(Object.keys(bmf)).toEqual(['pkg:op:a 1', 'pkg:op:b 2']);
    for (const [name, measures] of Object.entries(bmf)) {
      expect(Object.keys(measures)).toEqual([kBencherMeasure]);
      const m = measures[kBencherMeasure];
      const r = report.ratios.find((x) => x.name === name);
      expect(Object.keys(m ?? {}).sort()).toEqual(['lower_value', 'upper_value', 'value']);
      expect(m?.value).toBeCloseTo(r?.ratio ?? 0, 6);
      expect(m?.lower_value).toBeLessThanOrEqual(m?.value ?? 0);
      expect(m?.upper_value).toBeGreaterThanOrEqual(m?.value ?? 0);
    }
  });

  it('side files sit next to the JSON', () => {
    expect(sideFilePaths('/tmp/out.json')).toEqual({ githubActionBenchmark: '/tmp/out.github-action-benchmark.json', bencher: '/tmp/out.bmf.json' });
    expect(sideFilePaths('/tmp/out')).toEqual({ githubActionBenchmark: '/tmp/out.github-action-benchmark.json', bencher: '/tmp/out.bmf.json' });
  });
});
