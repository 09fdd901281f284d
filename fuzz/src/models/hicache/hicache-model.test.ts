import { describe, expect, it } from 'vitest';
import { violationRuleOf } from '../../../test/support/violation-rule.js';
import { afterPrefixCommand, verifyPrefixQuiet } from '../prefix-cache/prefix-model-io.js';
import type { HiCacheGeometry } from './hicache-geometry.js';
import { setupHiCache } from './hicache-model.js';
import { ack, admit, burst, clearAll, decodeHiCacheCommands, evict, evictHost, hit, hostDoubleFree, loadBack } from './hicache-program.js';
import { formatHiCacheFailure, runHiCacheModel, runHiCacheProgram } from './run-hicache-model.js';

function expectClean(report: ReturnType<typeof runHiCacheModel>): void {
  expect(report.failed, formatHiCacheFailure(report)).toBe(false);
}

describe('hicache:model', () => {
  it('holds for the reference over random geometries, write policies and lifecycles', () => {
    const report = runHiCacheModel({ numRuns: 500 });
    expectClean(report);
    expect(report.runs).toBe(500);
  });

  it.each([
    ['write-back', { writePolicy: 'write_back' }],
    ['write-through-selective', { writePolicy: 'write_through_selective' }],
    ['a one-page host pool', { hostPages: 1 }],
    ['the production DCP geometry (64 × 8)', { kernelPageSize: 64, dcpSize: 8 }],
  ] as const)('holds with %s', (_name, geometry: Partial<HiCacheGeometry>) => {
    expectClean(runHiCacheModel({ numRuns: 150, geometry }));
  });

  it('runs a pasted two-tier program: cache, write through, evict to host, load back, ack', () => {
    const g: HiCacheGeometry = {
      kernelPageSize: 2, dcpSize: 2, poolPages: 16, rowCount: 4, needSort: false, checks: true, finishPath: 'unified', evictionPolicy: 'lru', groupedFinish: false,
      hostPages: 16, writePolicy: 'write_through', hostChecks: true,
    };
    const m = runHiCacheProgram(g, [
      burst({ prefix: 0, shared: 16, own: 1, extraKey: null }, 1, { cap: 'none', n: 0 }),
      hit(0, 16),
      ack(0),
      evict(64),
      loadBack(0, 16, 64),
      ack(0),
      hit(0, 16),
      evictHost(64),
    ]);
    expect(m.executed).toBe(8);
  });

  it('walks the whole tree at quiet points only: a host slot no node owns is found there', () => {
    const g: HiCacheGeometry = {
      kernelPageSize: 2, dcpSize: 2, poolPages: 16, rowCount: 4, needSort: false, checks: true, finishPath: 'unified', evictionPolicy: 'lru', groupedFinish: false,
      hostPages: 16, writePolicy: 'write_through', hostChecks: true,
    };
    const ruleAfter = (check: 'command' | 'quiet'): string => {
      const { model: m, real: r } = setupHiCache(g);
      for (const c of [burst({ prefix: 0, shared: 16, own: 1, extraKey: null }, 1, { cap: 'none', n: 0 }), hit(0, 16), ack(0)]) void c.run(m, r);
      r.hostPool.alloc(4);
      return violationRuleOf(() => (check === 'command' ? afterPrefixCommand(m, r, 'leak') : verifyPrefixQuiet(m, r, 'leak', true)));
    };
    expect(ruleAfter('command')).toBe('none');
    expect(ruleAfter('quiet')).toBe('host-leak');
  });

  it('prints commands as before and rebuilds them from their data', () => {
    const program = [hit(1, 8), loadBack(0, 16, 40), ack(3), clearAll(), hostDoubleFree(5), admit({ prefix: 1, shared: 8, own: 2, extraKey: null })];
    const lines = ['hit(1, 8)', 'loadBack(0, 16, 40)', 'ack(3)', 'clearAll()', 'hostDoubleFree(5)', "admit({ prefix: 1, shared: 8, own: 2, extraKey: null })"];
    expect(program.map(String)).toEqual(lines);
    expect(decodeHiCacheCommands(program.map((c) => c.toData())).map(String)).toEqual(lines);
  });
});
