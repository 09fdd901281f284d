import { describe, expect, it } from 'vitest';
import { syntheticReport, syntheticRounds } from '../test-support/synthetic.js';
import { aaCalibration, aaOutcome, kBenchSchema, kEmptyFactorMin, parseReport, ReportFormatError, type RatioEntry } from './bench-report.js';

describe('bench:report,json', () => {
  const report = syntheticReport([
    { name: 'pkg:op:cheap', rounds: syntheticRounds(10, 1.0, 0.01, 1) },
    { name: 'pkg:op:costly', rounds: syntheticRounds(10, 1.2, 0.01, 2) },
    { name: 'pkg:op:nothing', rounds: syntheticRounds(10, 1.0, 0.01, 3, 0.25, 0.2) },
  ]);

  it('has the documented top level', () => {
    expect(Object.keys(report)).toEqual([
      'kvfuzz', 'createdAt', 'mode', 'aa', 'filter', 'settings', 'machine', 'rounds', 'children', 'retries', 'stopReason', 'elapsedSeconds', 'summary', 'ratios', 'benches', 'warnings',
    ]);
    expect(report.kvfuzz).toBe(kBenchSchema);
    expect(Object.keys(report.machine)).toEqual(['cpu', 'os', 'node', 'v8', 'mitata', 'taskset', 'loadAverage']);
    expect(report.machine.taskset.used).toBe(true);
    expect(report.rounds).toBe(10);
  });

  it('every ratio is { name, ratio, ciLow, ciHigh, verdict, rounds }', () => {
    expect(report.ratios.map((r) => Object.keys(r))).toEqual(Array(3).fill(['name', 'ratio', 'ciLow', 'ciHigh', 'verdict', 'rounds']));
    expect(report.ratios.map((r) => r.verdict)).toEqual(['pass', 'fail', 'pass']);
    expect(report.summary).toEqual({ benches: 3, pass: 2, fail: 1, inconclusive: 0, measuringNothing: 1, informational: 0 });
  });

  it('records how intervals were made and read: order statistics at the looks, each at the looks\' share of 95%', () => {
    expect(report.settings).toMatchObject({ interval: 'order-statistic', looks: [9], confidence: 0.95, isolation: 'case', layout: 'bundle', kvModel: { name: 'qwen2.5-0.5b', kvBytesPerToken: 12_288 } });
    expect(report.settings).not.toHaveProperty('resamples');
  });

  it('an A/A case is ok when it passes with an interval holding 1, biased when it excludes 1, undecided or a false fail otherwise', () => {
    const at = (ciLow: number, ciHigh: number, verdict: RatioEntry['verdict']) => ({ ciLow, ciHigh, verdict });
    expect(aaOutcome(at(0.99, 1.01, 'pass'))).toBe('ok');
    expect(aaOutcome(at(1.001, 1.02, 'pass'))).toBe('biased');
    expect(aaOutcome(at(0.97, 0.999, 'pass'))).toBe('biased');
    expect(aaOutcome(at(0.98, 1.05, 'inconclusive'))).toBe('undecided');
    expect(aaOutcome(at(1.04, 1.06, 'fail'))).toBe('false-fail');
    const ratio = (name: string, ciLow: number, ciHigh: number, verdict: RatioEntry['verdict'], metric?: RatioEntry['metric']): RatioEntry => ({ name, ratio: (ciLow + ciHigh) / 2, ciLow, ciHigh, verdict, rounds: 9, ...(metric === undefined ? {} : { metric }) });
    expect(aaCalibration([ratio('a', 0.99, 1.01, 'pass'), ratio('b', 1.04, 1.06, 'fail'), ratio('c', 0.98, 1.05, 'inconclusive'), ratio('g', 3, 4, 'fail', 'gpu / cpu')])).toEqual({ ok: 1, biased: [], undecided: ['c'], falseFail: ['b'] });
  });

  it('keeps per-round samples and marks the checks-off baseline', () => {
    const b = report.benches[0];
    expect(b?.baseline).toBe('checks-off');
    expect(b?.variants['checks-off'].baseline).toBe(true);
    expect(b?.variants['checks-on'].baseline).toBe(false);
    expect(b?.variants['checks-on'].perRoundNs).toHaveLength(10);
    expect(b?.perRound).toHaveLength(10);
  });

  it(`flags a bench within ${kEmptyFactorMin}× of the empty function as measuring nothing`, () => {
    const nothing = report.benches.find((b) => b.name === 'pkg:op:nothing');
    expect(nothing?.variants['checks-off'].measuresNothing).toBe(true);
    expect(report.benches[0]?.variants['checks-off'].measuresNothing).toBe(false);
    expect(report.warnings.some((w) => w.startsWith('pkg:op:nothing [checks-off]') && w.includes('measures nothing'))).toBe(true);
  });

  it('parses its own JSON back and refuses other documents, naming the field', () => {
    expect(parseReport(JSON.parse(JSON.stringify(report)), 'x').ratios).toHaveLength(3);
    expect(() => parseReport(null, 'x')).toThrow(ReportFormatError);
    expect(() => parseReport({ ...report, kvfuzz: 'fuzz-campaign/1' }, 'x')).toThrow(/kvfuzz is "fuzz-campaign\/1"/);
    const broken = JSON.parse(JSON.stringify(report)) as { benches: { variants: { 'checks-on': { perRoundNs: unknown[] } } }[] };
    (broken.benches[1] as (typeof broken.benches)[0]).variants['checks-on'].perRoundNs[2] = -1;
    expect(() => parseReport(broken, 'x')).toThrow(/benches\[1\]\.variants\.checks-on\.perRoundNs\[2\] is -1/);
  });
});
