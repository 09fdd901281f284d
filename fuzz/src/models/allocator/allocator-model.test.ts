import { describe, expect, it } from 'vitest';
import { formatAllocatorFailure as formatFailure, runAllocatorModel, runAllocatorProgram } from './run-allocator-model.js';
import { alloc, decode, decodeAllocatorCommands, extend, freeRow, freeSegments, groupBegin, groupEnd, reject } from './program.js';
import { allocatorGeometrySchema, formatGeometry, type AllocatorGeometry } from './geometry.js';
import { createAllocator, type AllocatorConfig, type AllocatorProvider } from '@kvfuzz/allocator-core';
import { ruleOfError } from '../../contract/rule-of-error.js';
import { createSkipsDcpDivisibility, sizeCeilHidden, sizeCeilPages } from '../../../mutants/allocator/config-mutants.js';
import stackProvider from '../../../alternatives/stack-allocator.js';

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

  describe('configuration rules (A2, A3, A4)', () => {
    const g: AllocatorGeometry = { kernelPageSize: 4, dcpSize: 2, poolPages: 3, needSort: false, checks: true };
    /** The rule a program's failure breaks, or 'pass'. */
    function verdict(geometry: AllocatorGeometry, provider: AllocatorProvider, exact = false): string {
      try {
        runAllocatorProgram(geometry, [alloc(8), extend([{ pick: null, tokens: 9 }]), freeRow(0)], provider, exact);
        return 'pass';
      } catch (error) {
        return ruleOfError('allocator', error) ?? String(error);
      }
    }
    const provider = (create: (c: AllocatorConfig) => ReturnType<AllocatorProvider['create']>): AllocatorProvider => ({ name: 'p', create });

    it('A3: a refused remainder falls back to the floored size; an accepted one must floor numPages', () => {
      const withRemainder = { ...g, sizeExtraTokens: 6 };
      expect(verdict(withRemainder, provider(createAllocator))).toBe('pass');
      expect(verdict(withRemainder, provider(createAllocator), true)).toBe('pass');
      expect(verdict(withRemainder, stackProvider)).toBe('pass');
      expect(verdict(withRemainder, provider(sizeCeilPages))).toBe('A3');
      expect(verdict(withRemainder, provider(sizeCeilHidden))).toBe('A3');
      // Control: without a remainder the ceil bugs have nothing to round up.
      expect(verdict(g, provider(sizeCeilPages))).toBe('pass');
    });

    it('A3: a page past numPages handed out after an accepted remainder breaks A3 (A6 otherwise)', () => {
      // numPages and availability as floored, but the first allocation is page numPages + 1.
      const pastPool = provider((c) => {
        const a = stackProvider.create(c);
        const inner = a.alloc.bind(a);
        return Object.assign(a, { alloc: (n: number) => inner(n)?.map((slot) => slot + a.numPages * a.pageSize) ?? null });
      });
      expect(verdict({ ...g, sizeExtraTokens: 2 }, pastPool)).toBe('A3');
      expect(verdict(g, pastPool)).toBe('A6');
    });

    it.each([
      ['sizeTokens 0', { sizeTokens: 0, kernelPageSize: 2, dcpSize: 1 }],
      ['a fractional kernelPageSize', { sizeTokens: 16, kernelPageSize: 2.5, dcpSize: 1 }],
      ['a negative dcpSize', { sizeTokens: 16, kernelPageSize: 2, dcpSize: -2 }],
      ['a sizeTokens dcpSize does not divide', { sizeTokens: 17, kernelPageSize: 2, dcpSize: 4 }],
    ])('A2: %s must be refused before the run', (_label, config) => {
      const probed = { ...g, configProbe: { rule: 'A2' as const, ...config } };
      expect(verdict(probed, provider(createAllocator))).toBe('pass');
      expect(verdict(probed, stackProvider)).toBe('pass');
      const acceptsAll = provider((c) => (c.sizeTokens === config.sizeTokens ? createAllocator({ sizeTokens: 16, kernelPageSize: 2 }) : createAllocator(c)));
      expect(verdict(probed, acceptsAll)).toBe('A2');
    });

    it('A2: the planted bug that skips the dcpSize divisibility check is caught by its probe only', () => {
      const probe = { rule: 'A2' as const, sizeTokens: 17, kernelPageSize: 2, dcpSize: 4 };
      expect(verdict({ ...g, configProbe: probe }, provider(createSkipsDcpDivisibility))).toBe('A2');
      expect(verdict(g, provider(createSkipsDcpDivisibility))).toBe('pass');
    });

    it('A4: a dcpSize that is not a power of two may be refused, or accepted with A1 geometry (a wrong one breaks A4)', () => {
      const probed = { ...g, configProbe: { rule: 'A4' as const, sizeTokens: 24, kernelPageSize: 2, dcpSize: 3 } };
      expect(verdict(probed, provider(createAllocator))).toBe('pass');
      expect(verdict(probed, stackProvider)).toBe('pass');
      const wrongPages = provider((c) => (c.dcpSize === 3 ? Object.assign(stackProvider.create(c), { numPages: 5 }) : stackProvider.create(c)));
      expect(verdict(probed, wrongPages)).toBe('A4');
    });

    it('prints the remainder and the probe in the geometry, and reads geometries stored without them', () => {
      const text = formatGeometry({ ...g, sizeExtraTokens: 6, configProbe: { rule: 'A2', sizeTokens: 0, kernelPageSize: 2, dcpSize: 1 } });
      expect(text).toContain('sizeTokens 30 = 3 pages + 6 tokens');
      expect(text).toContain('first create({ sizeTokens: 0, kernelPageSize: 2, dcpSize: 1 }) (A2: must be refused)');
      expect(allocatorGeometrySchema.safeParse(g).success).toBe(true);
      expect(allocatorGeometrySchema.safeParse({ ...g, sizeExtraTokens: 6 }).success).toBe(true);
      expect(allocatorGeometrySchema.safeParse({ ...g, sizeExtraTokens: 5 }).success).toBe(false); // dcpSize 2 does not divide it
      expect(allocatorGeometrySchema.safeParse({ ...g, sizeExtraTokens: 8 }).success).toBe(false); // a whole page
    });
  });
});
