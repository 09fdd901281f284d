import { expect } from 'vitest';
import type { BaseAllocator } from '../base-allocator.js';

/** An error class as `toThrow` takes it. */
export type ErrorClass<E extends Error> = new (...args: never[]) => E;

/**
 * Runs `call` once and asserts that it threw `errorClass`, that the message names every value of
 * `named`, and that the error carries the class's stable `name`.
 *
 * @returns the error, for further checks (e.g. `DoubleFreeError.pages`).
 */
export function expectThrown<E extends Error>(call: () => unknown, errorClass: ErrorClass<E>, named: readonly (string | number)[]): E {
  let caught: unknown;
  expect(() => {
    try {
      call();
    } catch (error) {
      caught = error;
      throw error;
    }
  }).toThrow(errorClass);
  const error = caught as E;
  expect(error.name).toBe(errorClass.name);
  for (const value of named) expect(error.message).toContain(String(value));
  return error;
}

/**
 * STYLE rule 18 outside a free group: `call` throws `errorClass` naming `named`, and
 * `backupState()` (free list, staged pages, page states) and `inspect()` are deep-equal before
 * and after.
 */
export function expectRejected<E extends Error>(
  allocator: BaseAllocator,
  call: () => unknown,
  errorClass: ErrorClass<E>,
  named: readonly (string | number)[],
): E {
  const before = allocator.backupState();
  const inspectBefore = allocator.inspect();
  const availableBefore = allocator.availableSize();
  const error = expectThrown(call, errorClass, named);
  expect(allocator.backupState()).toEqual(before);
  expect(allocator.inspect()).toEqual(inspectBefore);
  expect(allocator.availableSize()).toBe(availableBefore);
  return error;
}

/**
 * STYLE rule 18 inside an open free group, where `backupState()` is refused: `setup` opens the
 * group (and queues what it likes) on two allocators built alike; on the subject `call` must throw
 * `errorClass` naming `named` with `inspect()` unchanged; then both close the group, and their
 * `backupState()` must be deep-equal — so the rejected call queued nothing and released nothing.
 */
export function expectRejectedInGroup<A extends BaseAllocator, E extends Error>(
  make: () => A,
  setup: (allocator: A) => void,
  call: (allocator: A) => unknown,
  errorClass: ErrorClass<E>,
  named: readonly (string | number)[],
): E {
  const subject = make();
  const twin = make();
  setup(subject);
  setup(twin);
  const inspectBefore = subject.inspect();
  const error = expectThrown(() => call(subject), errorClass, named);
  expect(subject.inspect()).toEqual(inspectBefore);
  subject.freeGroupEnd();
  twin.freeGroupEnd();
  expect(subject.backupState()).toEqual(twin.backupState());
  expect(subject.inspect()).toEqual(twin.inspect());
  return error;
}
