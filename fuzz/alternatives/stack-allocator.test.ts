import { describe, expect, it } from 'vitest';
import type { AllocatorConfig, PageAllocator } from '@kvfuzz/allocator-core';
import { ruleOfError } from '../src/contract/rule-of-error.js';
import { LedgerViolation } from '../src/ledger/ledger-violation.js';
import type { AllocatorGeometry } from '../src/models/allocator/geometry.js';
import { alloc, freeRow, groupBegin, groupEnd, reject } from '../src/models/allocator/program.js';
import { runAllocatorProgram } from '../src/models/allocator/run-allocator-model.js';
import { validateProvider } from '../src/validate/validate-provider.js';
import { GroupEndChecksLate, GroupEndNotAtomic } from '../mutants/allocator/group-end-mutants.js';
import stackProvider from './stack-allocator.js';

// The state-stack alternative takes the contract's other choices (CONTRACT.md A3, A4, A24): a
// size with a remainder floored, any positive dcpSize, and a bad give-back inside a free group
// refused at the group's end. Examples per choice (STYLE 18: a control, the rule alone, "threw
// and nothing changed"), the validator passing it, and the model programs that pin A24's choice.

function make(config: Partial<AllocatorConfig> = {}): PageAllocator {
  return stackProvider.create({ sizeTokens: 16 * 4, kernelPageSize: 4, dcpSize: 1, needSort: false, checks: true, ...config });
}

function pagesOf(slots: Int32Array | null, pageSize: number): number[] {
  const pages: number[] = [];
  for (const slot of slots ?? []) if (!pages.includes(Math.floor(slot / pageSize))) pages.push(Math.floor(slot / pageSize));
  return pages;
}

function thrown(call: () => unknown): Error {
  try {
    call();
  } catch (error) {
    return error as Error;
  }
  throw new Error('the call did not throw');
}

describe('alternatives:state-stack', () => {
  describe('config', () => {
    it('floors a sizeTokens that is not a page multiple (A3): 18 tokens of page 4 are 4 pages', () => {
      const a = make({ sizeTokens: 18 });
      expect([a.pageSize, a.numPages, a.availableSize()]).toEqual([4, 4, 16]);
      expect(pagesOf(a.alloc(16), 4)).toEqual([1, 2, 3, 4]);
      expect(a.alloc(4)).toBeNull();
      expect(make({ sizeTokens: 16 }).numPages).toBe(4); // control: a page multiple
    });

    it('accepts a dcpSize that is not a power of two (A4), with A1 geometry', () => {
      const a = make({ sizeTokens: 24, kernelPageSize: 2, dcpSize: 3 });
      expect([a.pageSize, a.numPages, a.availableSize()]).toEqual([6, 4, 24]);
    });

    it.each<[Partial<AllocatorConfig>, string]>([
      [{ sizeTokens: 0 }, 'sizeTokens 0'],
      [{ sizeTokens: -8 }, 'sizeTokens -8'],
      [{ sizeTokens: 8.5 }, 'sizeTokens 8.5'],
      [{ kernelPageSize: 0 }, 'kernelPageSize 0'],
      [{ kernelPageSize: 1.5 }, 'kernelPageSize 1.5'],
      [{ dcpSize: -2 }, 'dcpSize -2'],
      [{ sizeTokens: 25, kernelPageSize: 1, dcpSize: 2 }, 'not divisible by dcpSize 2'],
      [{ sizeTokens: 3 }, 'smaller than one page'],
    ])('refuses %o (A2) naming %s', (config, named) => {
      const error = thrown(() => make(config));
      expect(error.name).toBe('ConfigError');
      expect(error.message).toContain(named);
    });
  });

  describe('a bad give-back inside a free group (A24: refused at freeGroupEnd)', () => {
    it('accepts it at the call, keeps it unavailable, and refuses the end changing nothing; clear() ends the group', () => {
      const a = make({ sizeTokens: 4 * 4 });
      const row = a.alloc(8) ?? new Int32Array(); // pages 1, 2
      a.freeGroupBegin();
      a.free(row.subarray(0, 4)); // page 1: a good give-back, queued
      a.free([3 * 4]); // page 3 is free: bad, accepted now
      expect(a.availableSize()).toBe(2 * 4);
      expect(pagesOf(a.alloc(4), 4)).toEqual([3]); // the free page named by the bad call may be handed out
      expect(thrown(() => a.freeGroupEnd()).name).toBe('FreeGroupError');
      expect(a.availableSize()).toBe(4);
      expect(() => a.freeGroupBegin()).toThrow(/nested/); // still open
      expect(() => a.freeGroupEnd()).toThrow(); // and refused again
      expect(a.availableSize()).toBe(4);
      a.clear();
      expect(a.availableSize()).toBe(16);
      a.freeGroupBegin();
      a.freeGroupEnd();
      (a as unknown as { verifyInvariants(): void }).verifyInvariants();
    });

    it.each<[string, (a: PageAllocator, row: Int32Array) => void]>([
      ['page 0', (a) => a.free([1])],
      ['a page given back already in the group', (a, row) => a.free([row[5] as number])],
      ['a slot outside the pool', (a) => a.free([5 * 4])],
      ['a negative slot', (a) => a.free([-1])],
      ['a page twice across segments', (a, row) => a.freeSegments([{ indices: row.subarray(0, 4), startPos: 0 }, { indices: row.subarray(0, 4), startPos: 4 }])],
    ])('defers %s to the end', (_label, bad) => {
      const a = make({ sizeTokens: 4 * 4 });
      const row = a.alloc(8) ?? new Int32Array();
      a.freeGroupBegin();
      a.free(row.subarray(4, 8)); // control: page 2 queued
      bad(a, row);
      expect(a.availableSize()).toBe(2 * 4);
      expect(() => a.freeGroupEnd()).toThrow();
      expect(a.availableSize()).toBe(2 * 4);
    });

    it('control: a group of good give-backs ends and releases them in the order named', () => {
      const a = make({ sizeTokens: 4 * 4 });
      const row = a.alloc(12) ?? new Int32Array();
      a.freeGroupBegin();
      a.free(row.subarray(0, 4));
      a.freeSegments([{ indices: row.subarray(4, 12), startPos: 0 }]);
      expect(a.availableSize()).toBe(4);
      a.freeGroupEnd();
      expect(pagesOf(a.alloc(12), 4)).toEqual([3, 2, 1]);
    });

    it('outside a group refuses the call itself, changing nothing', () => {
      const a = make({ sizeTokens: 4 * 4 });
      const row = a.alloc(4) ?? new Int32Array();
      const before = structuredClone(a.backupState());
      expect(thrown(() => a.free([row[0] as number, 2 * 4])).name).toBe('DoubleFreeError');
      expect(thrown(() => a.free([5 * 4])).name).toBe('SlotRangeError');
      expect(structuredClone(a.backupState())).toEqual(before);
    });
  });

  describe('the allocator model takes either choice (A24)', () => {
    // Page 4, two pages. A free page given back inside a group, then handed out before the group
    // ends: the reference refuses the give-back at the call, state-stack at freeGroupEnd. Before
    // the model knew the second choice, this program reported state-stack's accepted call as
    // `accepted-bad-input`.
    const g: AllocatorGeometry = { kernelPageSize: 4, dcpSize: 1, poolPages: 2, needSort: false, checks: true };
    const program = () => [alloc(4), groupBegin(), reject('doubleFree', 0, 1), alloc(4), groupEnd(), alloc(4), groupBegin(), freeRow(0), reject('doubleFreeInGroup', 0, 1), groupEnd()];

    it.each([false, true])('passes state-stack and the reference (exact mode %s)', (exact) => {
      expect(runAllocatorProgram(g, program(), stackProvider, exact).executed).toBe(10);
      expect(runAllocatorProgram(g, program(), undefined, exact).executed).toBe(10);
    });

    it.each([
      ['a refused end that releases the good pages', (c: AllocatorConfig) => new GroupEndNotAtomic(c), 'A17'],
      ['an end that checks the group against the states then, releasing the page handed out since', (c: AllocatorConfig) => new GroupEndChecksLate(c), 'A24'],
    ] as const)('catches %s', (_label, create, rule) => {
      const error = thrown(() => runAllocatorProgram(g, program(), { name: 'bug', create }));
      expect(error).toBeInstanceOf(LedgerViolation);
      expect(ruleOfError('allocator', error)).toBe(rule);
    });
  });

  it('passes pnpm validate in contract mode (a few seconds), not in exact mode', () => {
    const result = validateProvider(stackProvider, 'contract', { seed: (Math.random() * 0x7fffffff) | 0, numRuns: Number.MAX_SAFE_INTEGER, timeLimitMs: 3_000 });
    expect(result.verdict, result.text).toBe('pass');
    expect(result.report.runs).toBeGreaterThan(100);
    // Not a drop-in port: exact mode sees other page ids than the reference's.
    expect(validateProvider(stackProvider, 'exact', { seed: 1, numRuns: 2_000, timeLimitMs: 5_000 }).verdict).toBe('violation');
  });
});
