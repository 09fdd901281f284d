import { describe, expect, it } from 'vitest';
import { fastCheckSeed, kSeedMax, parseSeed, randomSeed } from './seed.js';
import { UsageError } from './usage-error.js';

describe('fuzz:cli,seed', () => {
  it('accepts decimal integers in [0, 2^53 − 1]', () => {
    expect(parseSeed('0')).toBe(0);
    expect(parseSeed('42')).toBe(42);
    expect(parseSeed('4294967297')).toBe(4294967297);
    expect(parseSeed(String(kSeedMax))).toBe(kSeedMax);
  });

  it.each(['', ' ', '-1', '+1', '1e3', '0x10', '1.5', '9007199254740992', '12345678901234567', 'seven'])('refuses %j', (raw) => {
    expect(() => parseSeed(raw)).toThrow(UsageError);
    expect(() => parseSeed(raw)).toThrow(/is not an integer in \[0, 9007199254740991\]/);
  });

  it('names the variable a seed came from', () => {
    expect(() => parseSeed('abc', 'GITHUB_RUN_ID')).toThrow(/^GITHUB_RUN_ID "abc" is not an integer/);
  });

  it('keeps seeds below 2^31 and folds larger ones without aliasing the low bits', () => {
    expect(fastCheckSeed(0)).toBe(0);
    expect(fastCheckSeed(0x7fffffff)).toBe(0x7fffffff);
    expect(fastCheckSeed(4294967297)).not.toBe(1);
    expect(fastCheckSeed(4294967297)).not.toBe(fastCheckSeed(8589934593));
    expect(Number.isInteger(fastCheckSeed(kSeedMax))).toBe(true);
    expect(fastCheckSeed(12345678901)).toBe(fastCheckSeed(12345678901));
  });

  it('draws random seeds below 2^31', () => {
    for (let i = 0; i < 100; i++) {
      const seed = randomSeed();
      expect(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31).toBe(true);
    }
  });
});
