import { describe, expect, it } from 'vitest';
import { violationRuleOf } from '../../../test/support/violation-rule.js';
import type { PrefixGeometry } from './geometry.js';
import { setupPrefix } from './prefix-model.js';
import { afterPrefixCommand, verifyPrefixQuiet } from './prefix-model-io.js';
import type { PrefixModel, PrefixReal } from './prefix-model-state.js';
import { admit, burst, decode, decodePrefixCommands, evict, finish, prefill, releaseTail, specAlloc, swa } from './prefix-program.js';
import { formatPrefixFailure, runPrefixModel, runPrefixProgram } from './run-prefix-model.js';

function expectClean(report: ReturnType<typeof runPrefixModel>): void {
  expect(report.failed, formatPrefixFailure(report)).toBe(false);
}

describe('prefix-cache:model', () => {
  it('holds for the reference cache over random geometries and lifecycles', () => {
    const report = runPrefixModel({ numRuns: 800 });
    expectClean(report);
    expect(report.runs).toBe(800);
  });

  it.each([
    ['the production DCP geometry (64 × 8 = 512)', { kernelPageSize: 64, dcpSize: 8 }],
    ['the classic finish path', { finishPath: 'classic' }],
    ['grouped finishes under needSort', { groupedFinish: true, needSort: true }],
    ['a tight pool (evictions forced)', { poolPages: 4 }],
    ['token pages (page 1)', { kernelPageSize: 1, dcpSize: 1 }],
  ] as const)('holds at %s', (_name, geometry: Partial<PrefixGeometry>) => {
    expectClean(runPrefixModel({ numRuns: 150, geometry }));
  });

  it('runs a pasted lifecycle: shared prefix, chunked prefill, speculative decode, capped finish, eviction', () => {
    const g: PrefixGeometry = { kernelPageSize: 2, dcpSize: 4, poolPages: 24, rowCount: 4, needSort: false, checks: true, finishPath: 'unified', evictionPolicy: 'lru', groupedFinish: true };
    const m = runPrefixProgram(g, [
      admit({ prefix: 0, shared: 20, own: 5, extraKey: null }),
      prefill(0, 9),
      prefill(0, 16),
      admit({ prefix: 0, shared: 20, own: 3, extraKey: null }),
      prefill(1, 23),
      specAlloc(0, 11),
      decode([0, 1, 0]),
      swa(0, 8),
      releaseTail(0, [3, 7]),
      finish(1, { cap: 'kernel', n: 5 }, { insert: true }),
      burst({ prefix: 1, shared: 18, own: 4, extraKey: 'lora-a' }, 3, { cap: 'kernel', n: 2 }),
      evict(64),
      finish(0, { cap: 'belowProtected', n: 1 }, { insert: true }),
    ]);
    expect(m.executed).toBe(13);
  });

  it('checks after a command only what it touched, and still catches a page given back under an untouched row', () => {
    const g: PrefixGeometry = { kernelPageSize: 2, dcpSize: 2, poolPages: 16, rowCount: 4, needSort: false, checks: true, finishPath: 'unified', evictionPolicy: 'lru', groupedFinish: false };
    const ruleAfter = (corrupt: (m: PrefixModel, r: PrefixReal) => void, check: 'command' | 'quiet'): string => {
      const { model: m, real: r } = setupPrefix(g);
      for (const c of [admit({ prefix: 0, shared: 0, own: 9, extraKey: null }), prefill(0, 9), admit({ prefix: 1, shared: 0, own: 5, extraKey: null })]) void c.run(m, r);
      corrupt(m, r);
      return violationRuleOf(() => (check === 'command' ? afterPrefixCommand(m, r, 'corrupt') : verifyPrefixQuiet(m, r, 'corrupt', true)));
    };
    const firstRow = (r: PrefixReal): Int32Array => r.reqToToken.row(0);
    // Request #0's first page given back by a command that touched no request: caught at once.
    expect(ruleAfter((_m, r) => r.recorder.free([firstRow(r)[0] as number]), 'command')).toBe('use-after-free');
    // A row rewritten behind the model's back is not what a command touched; the quiet check finds it.
    const rewrite = (_m: PrefixModel, r: PrefixReal): void => void firstRow(r).set([firstRow(r)[1] as number], 0);
    expect(ruleAfter(rewrite, 'command')).toBe('none');
    expect(ruleAfter(rewrite, 'quiet')).toBe('row-structure');
  });

  it('prints commands as before and rebuilds them from their data', () => {
    const program = [
      admit({ prefix: 1, shared: 576, own: 40, extraKey: 'lora-a' }),
      finish(0, { cap: 'kernel', n: 1 }, { insert: true }),
      burst({ prefix: 0, shared: 0, own: 9, extraKey: null }, 2, { cap: 'kernel', n: 0 }),
    ];
    const lines = ["admit({ prefix: 1, shared: 576, own: 40, extraKey: 'lora-a' })", "finish(0, { cap: 'kernel', n: 1 }, { insert: true })", "burst({ prefix: 0, shared: 0, own: 9, extraKey: null }, 2, { cap: 'kernel', n: 0 })"];
    expect(program.map(String)).toEqual(lines);
    expect(decodePrefixCommands(program.map((c) => c.toData())).map(String)).toEqual(lines);
  });
});
