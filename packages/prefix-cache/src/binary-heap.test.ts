import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BinaryHeap } from './binary-heap.js';

describe('prefix-cache:binary-heap,*', () => {
  it('pops undefined when empty', () => {
    const heap = new BinaryHeap<number>((a, b) => a - b);
    expect(heap.pop()).toBeUndefined();
    expect(heap.size).toBe(0);
  });

  test.prop([fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 60, size: 'max' }), fc.array(fc.boolean(), { maxLength: 120, size: 'max' })])(
    'interleaved pushes and pops always pop the current minimum',
    (values, popFirst) => {
      const heap = new BinaryHeap<number>((a, b) => a - b);
      const model: number[] = [];
      let next = 0;
      for (const pop of popFirst) {
        if (pop || next >= values.length) {
          model.sort((a, b) => a - b);
          expect(heap.pop()).toBe(model.shift());
        } else {
          const value = values[next++] as number;
          heap.push(value);
          model.push(value);
        }
        expect(heap.size).toBe(model.length);
      }
      model.sort((a, b) => a - b);
      const drained: number[] = [];
      for (let item = heap.pop(); item !== undefined; item = heap.pop()) drained.push(item);
      expect(drained).toEqual(model);
    },
  );
});
