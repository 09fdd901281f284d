import { KvfuzzError } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { HostDoubleAllocError, HostDoubleFreeError } from './errors.js';

describe('host-pool:errors', () => {
  it.each([
    [new HostDoubleAllocError([1]), 'HostDoubleAllocError', 'KVFUZZ_HOST_DOUBLE_ALLOC'],
    [new HostDoubleFreeError([1]), 'HostDoubleFreeError', 'KVFUZZ_HOST_DOUBLE_FREE'],
  ] as const)('%s carries a stable name and code', (error, name, code) => {
    expect(error).toBeInstanceOf(KvfuzzError);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(structuredClone({ name: error.name, code: error.code, message: error.message })).toEqual({ name, code, message: error.message });
  });

  it('messages are the engine\'s slot_used messages, naming the slots', () => {
    expect(new HostDoubleAllocError([0]).message).toBe('Double-alloc detected: slots already allocated: [0].');
    expect(new HostDoubleFreeError([1, 3]).message).toBe('Double-free detected: slots not currently allocated: [1, 3].');
    expect(new HostDoubleFreeError([7, 7]).slots).toEqual([7, 7]);
    expect(new HostDoubleAllocError([2, 5]).slots).toEqual([2, 5]);
  });
});
