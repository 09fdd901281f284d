import { describe, expect, it } from 'vitest';
import { benchPair, crossProduct, expandName, kBaselineVariant, kVariants } from './bench-pair.js';
import { matchesFilter } from './bench-files.js';

const noop = () => ({ kind: 'fn' as const, fn: () => {} });

describe('bench:harness,pair', () => {
  it('names carry the swept parameters, longest key first', () => {
    expect(expandName('free $dcp×$kernelPage', { dcp: 8, kernelPage: 64 })).toBe('free 8×64');
    expect(expandName('$dcpSize/$dcp', { dcp: 1, dcpSize: 2 })).toBe('2/1');
  });

  it('crossProduct varies the first sweep slowest', () => {
    expect(crossProduct({ batch: [1, 2] }, [{ g: 'a' }, { g: 'b' }])).toEqual([
      { batch: 1, g: 'a' },
      { batch: 1, g: 'b' },
      { batch: 2, g: 'a' },
      { batch: 2, g: 'b' },
    ]);
  });

  it('a pair has checks-off as its baseline', () => {
    const pair = benchPair({ name: 'op $n', points: [{ n: 1 }], pointsQuick: [{ n: 1 }], setup: noop });
    expect(pair.baseline).toBe('checks-off');
    expect(kBaselineVariant).toBe('checks-off');
    expect(kVariants.map((v) => [v.id, v.checks, v.baseline])).toEqual([
      ['checks-off', false, true],
      ['checks-on', true, false],
    ]);
  });

  it('refuses a sweep the name does not show, and a quick point outside the full sweep', () => {
    expect(() => benchPair({ name: 'op', points: [{ n: 1 }], pointsQuick: [], setup: noop })).toThrow(/\$n/);
    expect(() => benchPair({ name: 'op $n', points: [{ n: 1 }], pointsQuick: [{ n: 2 }], setup: noop })).toThrow(/quick point/);
  });

  it('--filter matches a substring, or a * pattern against the whole address', () => {
    const name = 'allocator-core:alloc-extend:allocExtend+free 64 8×64';
    expect(matchesFilter(name, 'alloc-extend')).toBe(true);
    expect(matchesFilter(name, 'ALLOCATOR-CORE:')).toBe(true);
    expect(matchesFilter(name, '*8×64')).toBe(true);
    expect(matchesFilter(name, 'allocator-core:*:*64 1×1')).toBe(false);
    expect(matchesFilter(name, 'prefix-cache')).toBe(false);
  });
});
