import { describe, expect, it } from 'vitest';
import {
  ArgumentError,
  ConfigError,
  DoubleAllocError,
  DoubleFreeError,
  FreeGroupError,
  InvariantError,
  KvfuzzError,
  LastLocError,
  SegmentError,
  SlotRangeError,
  StateError,
} from './errors.js';

describe('allocator-core:errors', () => {
  it.each([
    [new ConfigError('m'), 'ConfigError', 'KVFUZZ_CONFIG'],
    [new ArgumentError('m'), 'ArgumentError', 'KVFUZZ_ARGUMENT'],
    [new DoubleAllocError([1]), 'DoubleAllocError', 'KVFUZZ_DOUBLE_ALLOC'],
    [new DoubleFreeError([1]), 'DoubleFreeError', 'KVFUZZ_DOUBLE_FREE'],
    [new SlotRangeError([1], 4), 'SlotRangeError', 'KVFUZZ_SLOT_RANGE'],
    [new SegmentError('m'), 'SegmentError', 'KVFUZZ_SEGMENT'],
    [new LastLocError('m'), 'LastLocError', 'KVFUZZ_LAST_LOC'],
    [new FreeGroupError('m'), 'FreeGroupError', 'KVFUZZ_FREE_GROUP'],
    [new StateError('m'), 'StateError', 'KVFUZZ_STATE'],
    [new InvariantError('m'), 'InvariantError', 'KVFUZZ_INVARIANT'],
  ] as const)('%s carries a stable name and code', (error, name, code) => {
    expect(error).toBeInstanceOf(KvfuzzError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    // name and code survive a structured clone (worker threads), the class does not need to.
    expect(structuredClone({ name: error.name, code: error.code, message: error.message })).toEqual({ name, code, message: error.message });
  });

  it('messages name the values, in the engine\'s words where it has them', () => {
    expect(new DoubleFreeError([17]).message).toBe('Double-free detected: pages not currently allocated: [17].');
    expect(new DoubleAllocError([3, 4]).message).toBe('Double-alloc detected: pages already allocated: [3, 4].');
    expect(new SlotRangeError([20, -1], 20).message).toBe('Slots outside [0, 20): [20, -1].');
    expect(new DoubleFreeError([5, 6]).pages).toEqual([5, 6]);
    expect(new SlotRangeError([9], 8).slots).toEqual([9]);
  });
});
