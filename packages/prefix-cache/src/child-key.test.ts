import { describe, expect, it } from 'vitest';
import { childKeyOf } from './child-key.js';

describe('prefix-cache:child-key,*', () => {
  it('page 1 uses the first token; page 4 the first page', () => {
    expect(childKeyOf(null, [7, 8, 9], 0, 1)).toBe(childKeyOf(null, [7], 0, 1));
    expect(childKeyOf(null, [7, 8, 9, 10, 11], 0, 4)).toBe(childKeyOf(null, [7, 8, 9, 10], 0, 4));
    expect(childKeyOf(null, [7, 8, 9, 10], 0, 4)).not.toBe(childKeyOf(null, [7, 8, 9, 11], 0, 4));
  });

  it('reads the page at tokenStart', () => {
    expect(childKeyOf('a', [1, 2, 3, 4], 2, 2)).toBe(childKeyOf('a', [3, 4], 0, 2));
  });

  it('never confuses namespaces: null, the empty string, and strings that look like a separator', () => {
    const keys = [
      childKeyOf(null, [1, 2], 0, 2),
      childKeyOf('', [1, 2], 0, 2),
      childKeyOf('a', [1, 2], 0, 2),
      childKeyOf('a|1', [2], 0, 2),
      childKeyOf('-', [1, 2], 0, 2),
      childKeyOf(null, [12], 0, 2),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
