import { StateError } from '@kvfuzz/allocator-core';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { HostSlotPool } from './host-slot-pool.js';

/** Runs `ops` on `pool` (alloc of `pages` pages, or free of the held block `pick` picks), returning what each call answered. */
function run(pool: HostSlotPool, held: Int32Array[], ops: readonly { readonly alloc: boolean; readonly n: number }[]): string[] {
  const answers: string[] = [];
  for (const op of ops) {
    if (op.alloc) {
      const slots = pool.alloc(op.n * pool.pageSize);
      answers.push(slots === null ? 'null' : Array.from(slots).join(','));
      if (slots !== null && slots.length > 0) held.push(slots);
    } else if (held.length > 0) {
      const [block] = held.splice(op.n % held.length, 1);
      answers.push(`free ${pool.free(block as Int32Array)}`);
    }
  }
  return answers;
}

const kOps = fc.array(fc.record({ alloc: fc.boolean(), n: fc.nat(5) }), { maxLength: 30 });

describe('host-pool:slot-pool,snapshot', () => {
  // Restoring puts back the lists and the flags: the pool then answers the same calls the same way
  // (the flags included: a slot held at the snapshot is refused as a double free only if it is).
  test.prop([fc.integer({ min: 1, max: 4 }), fc.boolean(), kOps, kOps, kOps])(
    'after restoreState the pool is as at backupState and answers the same calls alike',
    (pageSize, checks, before, after, probe) => {
      const pool = new HostSlotPool({ sizeTokens: 24 * pageSize, pageSize, checks });
      const held: Int32Array[] = [];
      run(pool, held, before);
      const snapshot = pool.backupState();
      const lists = pool.inspect();
      const heldAtSnapshot = held.slice();
      const first = run(pool, heldAtSnapshot.slice(), probe);
      pool.restoreState(snapshot);
      run(pool, heldAtSnapshot.slice(), after);
      pool.restoreState(snapshot);
      expect(pool.inspect()).toEqual(lists);
      pool.verifyInvariants();
      expect(run(pool, heldAtSnapshot.slice(), probe)).toEqual(first);
    },
  );

  it('restores the slot_used flags: a block freed after the snapshot can be freed again after restoring it', () => {
    const pool = new HostSlotPool({ sizeTokens: 16, pageSize: 1, checks: true });
    const block = pool.alloc(4) as Int32Array;
    const snapshot = pool.backupState();
    pool.free(block);
    pool.restoreState(snapshot);
    expect(pool.free(block)).toBe(4);
  });

  it.each([
    ['a plain object', { size: 17 }, 'an object that backupState did not return'],
    ['undefined', undefined, 'undefined that backupState did not return'],
  ])('refuses %s with a StateError, changing nothing', (_, state, message) => {
    const pool = new HostSlotPool({ sizeTokens: 16, pageSize: 1, checks: true });
    pool.alloc(4);
    const lists = pool.inspect();
    expect(() => pool.restoreState(state)).toThrow(StateError);
    expect(() => pool.restoreState(state)).toThrow(message);
    expect(pool.inspect()).toEqual(lists);
  });

  it.each([
    ['size', { sizeTokens: 32, pageSize: 1, checks: true }, 'snapshot of 33 slots'],
    ['page size', { sizeTokens: 16, pageSize: 2, checks: true }, 'page size 2'],
    ['checks setting', { sizeTokens: 16, pageSize: 1, checks: false }, 'checks off does not fit'],
  ])('refuses a snapshot of another %s, naming it', (_, config, message) => {
    const pool = new HostSlotPool({ sizeTokens: 16, pageSize: 1, checks: true });
    const other = new HostSlotPool(config);
    other.alloc(config.pageSize);
    const lists = pool.inspect();
    expect(() => pool.restoreState(other.backupState())).toThrow(StateError);
    expect(() => pool.restoreState(other.backupState())).toThrow(message);
    expect(pool.inspect()).toEqual(lists);
  });
});
