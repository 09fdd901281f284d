import { describe, expect, it } from 'vitest';
import { formatAllocatorFailure as formatFailure, runAllocatorModel, runAllocatorProgram } from './run-allocator-model.js';
import { alloc, decode, extend, freeRow, freeSegments, groupBegin, groupEnd, parseAllocatorProgram } from './program.js';
import type { AllocatorGeometry } from './geometry.js';

function expectClean(report: ReturnType<typeof runAllocatorModel>, target: string): void {
  expect(report.failed, formatFailure(report, target)).toBe(false);
}

describe('fuzz:allocator-model', () => {
  it('holds for the reference over random geometries (contract mode)', () => {
    const report = runAllocatorModel({ numRuns: 1500 });
    expectClean(report, 'allocator');
    expect(report.runs).toBe(1500);
    expect(report.commands).toBeGreaterThan(10 * report.runs);
  });

  it('holds for the reference against itself in exact mode', () => {
    expectClean(runAllocatorModel({ numRuns: 300, mode: 'exact' }), 'allocator exact');
  });

  it.each([
    ['token allocator (page 1)', { kernelPageSize: 1, dcpSize: 1 }],
    ['production DCP geometry (64 × 8 = 512)', { kernelPageSize: 64, dcpSize: 8 }],
    ['one-page pool', { poolPages: 1 }],
  ] as const)('holds at %s', (_name, geometry) => {
    expectClean(runAllocatorModel({ numRuns: 200, geometry }), 'allocator');
  });

  it('runs a pasted program: extend, decode across a page, segment free of the tail, group free', () => {
    const g: AllocatorGeometry = { kernelPageSize: 2, dcpSize: 2, poolPages: 6, needSort: false, checks: true };
    const m = runAllocatorProgram(g, [
      extend([{ pick: null, tokens: 6 }]),
      decode([0, 0]),
      alloc(8),
      freeSegments(0, { keepPages: 1, cuts: [1] }),
      groupBegin(),
      freeRow(1),
      groupEnd(),
    ]);
    expect(m.executed).toBe(7);
  });

  it('parses printed programs back into the same commands', () => {
    const lines = ['alloc(64)', 'extend([{ pick: null, tokens: 5 }, { pick: 3, tokens: 0 }])', "reject('doubleFree', 0, 3)", 'freeSegments(0, { keepPages: 0, cuts: [1, 0] })'];
    expect(parseAllocatorProgram(lines).map(String)).toEqual(lines);
  });
});
