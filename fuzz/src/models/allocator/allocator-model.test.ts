import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectRoundTrip } from '../../../test/support/expect-round-trip.js';
import { allocatorCommandArbitraries, commandMixArbitrary } from './allocator-commands.js';
import { formatAllocatorFailure as formatFailure, runAllocatorModel, runAllocatorProgram } from './run-allocator-model.js';
import { alloc, decode, decodeAllocatorCommands, extend, freeRow, freeSegments, groupBegin, groupEnd, kAllocatorCodec, reject } from './program.js';
import { geometryArbitrary, type AllocatorGeometry } from './geometry.js';

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

  it('prints commands as before and rebuilds them from their data', () => {
    const program = [alloc(64), extend([{ pick: null, tokens: 5 }, { pick: 3, tokens: 0 }]), reject('doubleFree', 0, 3), freeSegments(0, { keepPages: 0, cuts: [1, 0] })];
    const lines = ['alloc(64)', 'extend([{ pick: null, tokens: 5 }, { pick: 3, tokens: 0 }])', "reject('doubleFree', 0, 3)", 'freeSegments(0, { keepPages: 0, cuts: [1, 0] })'];
    expect(program.map(String)).toEqual(lines);
    expect(decodeAllocatorCommands(program.map((c) => c.toData())).map(String)).toEqual(lines);
  });

  it('rebuilds every drawn command from its data (through JSON), printed the same', () => {
    const drawn = fc.sample(fc.tuple(geometryArbitrary(), commandMixArbitrary).chain(([g, mix]) => fc.oneof(...allocatorCommandArbitraries(g, mix))), { numRuns: 3000, seed: 7 });
    const ops = expectRoundTrip(drawn, decodeAllocatorCommands);
    expect(ops).toEqual(new Set(Object.keys(kAllocatorCodec)));
  });
});
