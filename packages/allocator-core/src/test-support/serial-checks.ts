import { fc } from '@fast-check/vitest';
import { expect } from 'vitest';
import type { BaseAllocator } from '../base-allocator.js';
import type { KvfuzzError } from '../errors.js';
import type { AllocatorConfig } from '../types.js';

/**
 * What the checks-on properties of both allocators share: a drawn page is mostly `kPick + k`, the
 * k-th held page when the op runs (so frees often succeed), else a raw page that is often free,
 * queued, page 0 or outside the pool.
 */
export const kPick = 1000;

/** A drawn page: `kPick + [0, 20]` three times in four, else a raw page in `[rawMin, rawMax]`. */
export function drawnPage(rawMin: number, rawMax: number): fc.Arbitrary<number> {
  return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: kPick, max: kPick + 20 }) }, { weight: 1, arbitrary: fc.integer({ min: rawMin, max: rawMax }) });
}

/** Resolves an op's picks against the pages held when it runs; the j-th pick steps one further, so picks are mostly distinct. */
export function pickResolver(held: ReadonlySet<number>): (drawn: number) => number {
  const heldNow = [...held].sort((a, b) => a - b);
  let picks = 0;
  return (drawn) => (drawn < kPick ? drawn : heldNow.length === 0 ? 0 : (heldNow[(drawn - kPick + picks++) % heldNow.length] as number));
}

/** An allocator class whose page states the properties read, also inside a free group. */
export type Probed<A extends BaseAllocator> = A & { states(): Uint8Array };

/**
 * `Base` with a `states()` probe, and with `serialLimit` lowered to 96 when `lowLimit` (so the
 * rare renumbering runs in every case).
 */
export function probed<A extends BaseAllocator>(Base: new (config: AllocatorConfig) => A, lowLimit: boolean): new (config: AllocatorConfig) => Probed<A> {
  // Typed as a plain class so the expression may extend it; `pageStates` is protected, reached by a cast (test-only).
  const Probe = class extends (Base as unknown as new (config: AllocatorConfig) => object) {
    protected readonly serialLimit: number = lowLimit ? 96 : 2 ** 30;
    states(): Uint8Array {
      return (this as unknown as { pageStates(): Uint8Array }).pageStates();
    }
  };
  return Probe as unknown as new (config: AllocatorConfig) => Probed<A>;
}

/**
 * Runs one op and asserts it was refused exactly when `expected()` (read after the op, which sets
 * it) names an error class: then with that class, and with nothing changed.
 */
export function expectRefusedExactly(allocator: BaseAllocator, run: () => void, expected: () => (new (...args: never[]) => KvfuzzError) | null): void {
  const before = JSON.stringify(allocator.inspect());
  let refused: unknown = null;
  try {
    run();
  } catch (error) {
    refused = error;
  }
  const expectRefusal = expected();
  if (expectRefusal === null) {
    if (refused !== null) throw refused;
    return;
  }
  expect(refused).toBeInstanceOf(expectRefusal);
  expect(JSON.stringify(allocator.inspect())).toBe(before);
}

/** Every page's state is the sets': page 0 reserved 3, held 1, queued 2, else free 0. */
export function expectStates(states: Uint8Array, lastPage: number, held: ReadonlySet<number>, queued: ReadonlySet<number>): void {
  for (let page = 0; page <= lastPage; page++) expect(states[page], `page ${page}`).toBe(page === 0 ? 3 : held.has(page) ? 1 : queued.has(page) ? 2 : 0);
}
