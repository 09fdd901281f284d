import { expect } from 'vitest';
import type { HostSlotPool } from '../host-slot-pool.js';
import { ProbedHostSlotPool } from './probed-pool.js';

/** An error class as `toThrow` takes it. */
export type ErrorClass<E extends Error> = new (...args: never[]) => E;

/**
 * Runs `call` once and asserts that it threw `errorClass`, that the message names every value of
 * `named` (or equals `named` when it is a string), and that the error carries the class's name.
 *
 * @returns the error, for further checks (e.g. `HostDoubleFreeError.slots`).
 */
export function expectThrown<E extends Error>(call: () => unknown, errorClass: ErrorClass<E>, named: string | readonly (string | number)[]): E {
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
  if (typeof named === 'string') expect(error.message).toBe(named);
  else for (const value of named) expect(error.message).toContain(String(value));
  return error;
}

/**
 * STYLE rule 18: `call` throws `errorClass` naming `named`, and the pool is as it was: the same
 * free list and pending chunks (`inspect()`), the same `availableSize()`, and — for a
 * {@link ProbedHostSlotPool} — the same used slots.
 */
export function expectRejected<E extends Error>(
  pool: HostSlotPool,
  call: () => unknown,
  errorClass: ErrorClass<E>,
  named: string | readonly (string | number)[],
): E {
  const before = snapshot(pool);
  const error = expectThrown(call, errorClass, named);
  expect(snapshot(pool)).toEqual(before);
  return error;
}

/** `call` returns `null` and the pool is as it was. */
export function expectNullUnchanged(pool: HostSlotPool, call: () => Int32Array | null): void {
  const before = snapshot(pool);
  expect(call()).toBeNull();
  expect(snapshot(pool)).toEqual(before);
}

function snapshot(pool: HostSlotPool): unknown {
  return {
    inspect: pool.inspect(),
    available: pool.availableSize(),
    used: pool instanceof ProbedHostSlotPool ? pool.usedSlots() : undefined,
  };
}
