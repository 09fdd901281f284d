import { describe, expect, it } from 'vitest';
import { kPageHeld } from './base-allocator.js';
import { createAllocator } from './create-allocator.js';
import { DoubleFreeError, FreeGroupError, StateError } from './errors.js';
import { PagedAllocator } from './paged-allocator.js';
import { expectRejected, expectRejectedInGroup } from './test-support/expect-rejected.js';
import { range } from './test-support/rows.js';

// backupState / restoreState (`backup_state` / `restore_state` of `allocator/base.py`, as
// test_allocator_cpu.py and test_allocator_gpu.py use them): a snapshot of the free state that
// alloc/free never mutate, for "allocate, then roll back".
const kGeometries = [
  { name: 'token', kernelPageSize: 1 },
  { name: 'paged', kernelPageSize: 4 },
] as const;

describe.each(kGeometries)('allocator-core:backup-restore,$name', ({ kernelPageSize }) => {
  const make = (needSort = false) => createAllocator({ sizeTokens: 16, kernelPageSize, needSort, checks: true });

  it('restore after alloc(8) + alloc(4) returns to full capacity', () => {
    const allocator = make();
    const snapshot = allocator.backupState();
    allocator.alloc(8);
    allocator.alloc(4);
    expect(allocator.availableSize()).toBe(4);
    allocator.restoreState(snapshot);
    expect(allocator.availableSize()).toBe(16);
    expect(allocator.backupState()).toEqual(make().backupState());
  });

  it('restore after a free reverts the free (available 12 of 16), and the pages are held again', () => {
    const allocator = make();
    const held = allocator.alloc(4) ?? new Int32Array(0);
    const snapshot = allocator.backupState();
    allocator.free(held);
    expect(allocator.availableSize()).toBe(16);
    allocator.restoreState(snapshot);
    expect(allocator.availableSize()).toBe(12);
    allocator.free(held); // legal again: the page states came back too
    expect(allocator.availableSize()).toBe(16);
  });

  it('restore makes pages handed out since free again, so giving them back is a double free', () => {
    const allocator = make();
    const snapshot = allocator.backupState();
    const held = allocator.alloc(4) ?? new Int32Array(0);
    allocator.restoreState(snapshot);
    expect(() => allocator.free(held)).toThrow(DoubleFreeError);
  });

  it('the next allocation after a restore repeats the one after the backup', () => {
    const allocator = make();
    allocator.free(allocator.alloc(12)?.subarray(0, 4) ?? []);
    const snapshot = allocator.backupState();
    const first = Array.from(allocator.alloc(8) ?? []);
    allocator.restoreState(snapshot);
    expect(Array.from(allocator.alloc(8) ?? [])).toEqual(first);
  });

  it('the snapshot is a deep copy and stays reusable', () => {
    const allocator = make(true);
    allocator.free(allocator.alloc(8)?.subarray(0, 4) ?? []); // stages the first page (or 4 slots)
    const snapshot = allocator.backupState();
    const copy = structuredClone(snapshot);
    const inspected = allocator.inspect();
    // Merges the staged pages, then stages others over the same storage.
    allocator.free(allocator.alloc(12)?.subarray(4) ?? []);
    expect(snapshot).toEqual(copy);
    allocator.restoreState(snapshot);
    expect(allocator.inspect()).toEqual(inspected);
    allocator.alloc(4);
    allocator.restoreState(snapshot);
    expect(allocator.inspect()).toEqual(inspected);
    allocator.verifyInvariants();
  });

  it('restores staged pages under needSort', () => {
    const allocator = make(true);
    const held = allocator.alloc(8) ?? new Int32Array(0);
    allocator.free(held);
    const staged = Array.from(allocator.inspect().staged);
    expect(staged.length).toBeGreaterThan(0);
    const snapshot = allocator.backupState();
    allocator.alloc(16); // merges the staged pages
    expect(allocator.inspect().staged).toHaveLength(0);
    allocator.restoreState(snapshot);
    expect(Array.from(allocator.inspect().staged)).toEqual(staged);
    expect(allocator.availableSize()).toBe(16);
  });

  it('a snapshot fits another allocator of the same geometry', () => {
    const source = make();
    source.alloc(8);
    const target = make();
    target.restoreState(source.backupState());
    expect(target.backupState()).toEqual(source.backupState());
  });
});

describe('allocator-core:backup-restore,extend', () => {
  it('size 256: restore after an extend of 8 returns to 256', () => {
    const allocator = new PagedAllocator({ sizeTokens: 256, kernelPageSize: 4, needSort: false, checks: true });
    const snapshot = allocator.backupState();
    expect(allocator.allocExtend({ prefixLens: [0], seqLens: [8], lastLoc: [-1] })).toHaveLength(8);
    expect(allocator.availableSize()).toBe(248);
    allocator.restoreState(snapshot);
    expect(allocator.availableSize()).toBe(256);
    expect(Array.from(allocator.inspect().free)).toEqual(range(1, 64));
  });
});

describe('allocator-core:backup-restore,reject', () => {
  const make = (checks = true) => new PagedAllocator({ sizeTokens: 64, kernelPageSize: 4, needSort: false, checks });

  it('refuses backupState and restoreState inside an open free group, changing nothing', () => {
    const snapshot = make().backupState();
    const setup = (allocator: PagedAllocator): void => {
      allocator.alloc(8);
      allocator.freeGroupBegin();
      allocator.free([4]);
    };
    expectRejectedInGroup(make, setup, (allocator) => allocator.backupState(), FreeGroupError, ['backupState', 'open free group']);
    expectRejectedInGroup(make, setup, (allocator) => allocator.restoreState(snapshot), FreeGroupError, ['restoreState', 'open free group']);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a plain object', { free: [1, 2] }],
  ])('refuses %s as a snapshot (StateError), changing nothing', (_name, state) => {
    const allocator = make();
    allocator.alloc(8);
    expectRejected(allocator, () => allocator.restoreState(state), StateError, ['restoreState']);
  });

  it('refuses a snapshot of another geometry: page size or page count', () => {
    const allocator = make();
    const otherPage = new PagedAllocator({ sizeTokens: 64, kernelPageSize: 8, needSort: false, checks: true }).backupState();
    const otherCount = new PagedAllocator({ sizeTokens: 60, kernelPageSize: 4, needSort: false, checks: true }).backupState();
    expectRejected(allocator, () => allocator.restoreState(otherPage), StateError, ['pageSize 8 × 8 pages', 'pageSize 4 × 16 pages']);
    expectRejected(allocator, () => allocator.restoreState(otherCount), StateError, ['pageSize 4 × 15 pages']);
  });

  it('refuses a snapshot taken with the other checks setting', () => {
    const on = make(true);
    const off = make(false);
    expectRejected(on, () => on.restoreState(off.backupState()), StateError, ['checks off']);
    expectRejected(off, () => off.restoreState(on.backupState()), StateError, ['checks on']);
  });

  it('a corrupt snapshot (a free page marked held) is refused at restore as StateError naming the page, changing nothing', () => {
    const allocator = make();
    allocator.alloc(4);
    const snapshot = allocator.backupState() as { readonly pageState: Uint8Array };
    const pageState = snapshot.pageState.slice();
    pageState[2] = kPageHeld;
    expectRejected(allocator, () => allocator.restoreState({ ...snapshot, pageState }), StateError, ['page 2', 'state 1', 'lists make it 0']);
  });
});
