import { describe, expect, it } from 'vitest';
import { sliceRadixKey } from './radix-key.js';

describe('prefix-cache:radix-key,slice', () => {
  it('keeps the namespace and copies the tokens', () => {
    const tokens = [1, 2, 3, 4];
    const sliced = sliceRadixKey({ tokens, extraKey: 'lora-7' }, 1, 3);
    tokens[1] = 99;
    expect(Array.from(sliced.tokens)).toEqual([2, 3]);
    expect(sliced.extraKey).toBe('lora-7');
  });

  it('defaults the end to the key length and an absent namespace to null', () => {
    const sliced = sliceRadixKey({ tokens: new Int32Array([5, 6, 7]) }, 1);
    expect(Array.from(sliced.tokens)).toEqual([6, 7]);
    expect(sliced.extraKey).toBeNull();
  });
});
