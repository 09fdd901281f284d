import { describe, expect, it } from 'vitest';
import { describeThrown } from './describe-thrown.js';

describe('fuzz:text,describe-thrown', () => {
  it('names errors and plain values', () => {
    expect(describeThrown(new RangeError('bad size 3'))).toBe('RangeError: bad size 3');
    expect(describeThrown('text')).toBe('text');
    expect(describeThrown(42)).toBe('42');
    expect(describeThrown(Symbol('s'))).toBe('Symbol(s)');
    expect(describeThrown(10n)).toBe('10');
  });

  it('describes null and undefined', () => {
    expect(describeThrown(null)).toBe('null was thrown');
    expect(describeThrown(undefined)).toBe('undefined was thrown');
  });

  it('never throws, whatever the value does', () => {
    const toStringThrows = { toString: () => { throw new Error('no'); } };
    expect(describeThrown(toStringThrows)).toBe('an unprintable object');
    const getterThrows = Object.defineProperty({}, 'message', { get: () => { throw new Error('no'); } });
    expect(describeThrown(getterThrows)).toBe('[object Object]');
    const proxy = new Proxy({}, { get: () => { throw new Error('trap'); } });
    expect(describeThrown(proxy)).toBe('an unprintable object');
    expect(describeThrown(Object.create(null))).toBe('an unprintable object');
  });

  it('keeps the line inert and bounded', () => {
    expect(describeThrown(new Error('\u001b[31mred\nnext'))).toBe('Error: \\e[31mred\\nnext');
    expect(describeThrown(new Error('x'.repeat(1000)), 20)).toBe(`Error: ${'x'.repeat(13)}… (987 more characters)`);
  });
});
