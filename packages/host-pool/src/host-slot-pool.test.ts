import { ArgumentError, InvariantError } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { HostDoubleAllocError, HostDoubleFreeError } from './errors.js';
import { HostSlotPool } from './host-slot-pool.js';
import { hostSlotPoolProvider } from './host-slot-pool-provider.js';
import { expectRejected } from './test-support/expect-rejected.js';
import { kLargePoolTokens } from './test-support/large-pool.js';
import { ProbedHostSlotPool } from './test-support/probed-pool.js';
import type { HostPool, HostSlotPoolConfig } from './types.js';

const list = (slots: Int32Array | null): number[] => Array.from(slots ?? []);

function pool(config: Partial<HostSlotPoolConfig> & { readonly sizeTokens: number; readonly pageSize: number }): ProbedHostSlotPool {
  return new ProbedHostSlotPool({ dcpSize: 1, checks: true, ...config });
}

describe('host-pool:slot-pool,sizing', () => {
  it.each([
    [8, 2, 5, 10], // aligned: one extra page anyway
    [7, 2, 4, 8], // 7 // 2 = 3, plus one
    [9, 2, 5, 10],
    [1, 4, 1, 4], // smaller than a page: the extra page is the whole pool
    [0, 4, 1, 4], // the engine's empty request (a budget or ratio of 0): still the extra page
    [8, 1, 9, 9],
    [7, 1, 8, 8],
  ])('%i requested tokens on page %i make %i pages, %i slots', (sizeTokens, pageSize, pageCount, size) => {
    const p = pool({ sizeTokens, pageSize });
    expect(p.pageCount).toBe(pageCount);
    expect(p.size).toBe(size);
    expect(p.logicalSize).toBe(size);
    expect(p.availableSize()).toBe(size);
    expect(list(p.inspect().free)).toEqual(Array.from({ length: size }, (_, slot) => slot));
  });

  it('an empty request makes a working pool of one page: alloc(4) takes it whole, a second gets null', () => {
    const p = pool({ sizeTokens: 0, pageSize: 4 });
    expect(list(p.alloc(4))).toEqual([0, 1, 2, 3]);
    expect(p.alloc(4)).toBeNull();
    expect(p.free([0, 1, 2, 3])).toBe(4);
    expect(p.availableSize()).toBe(4);
    p.verifyInvariants();
  });

  it('under DCP the page is the widened one and the bookkeeping is in logical slots', () => {
    // Kernel page 2 × DCP 4 = widened page 8; 32 logical tokens (8 per rank): 32 // 8 + 1 = 5 pages.
    const p = pool({ sizeTokens: 32, pageSize: 8, dcpSize: 4 });
    expect(p.pageSize).toBe(8);
    expect(p.pageCount).toBe(5);
    expect(p.size).toBe(40);
    expect(p.logicalSize).toBe(40);
    expect(p.physicalPageSize).toBe(2);
    expect(p.physicalSize).toBe(10);
    expect(p.dcpSize).toBe(4);
    expect(p.availableSize()).toBe(40);
  });
});

describe('host-pool:slot-pool,alloc', () => {
  it('hands out a fresh pool from slot 0 up (no reserved slot), page multiples only', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    expect(list(p.alloc(4))).toEqual([0, 1, 2, 3]);
    expect(list(p.alloc(2))).toEqual([4, 5]);
    expect(p.availableSize()).toBe(4);
    expect(p.usedSlots()).toEqual([0, 1, 2, 3, 4, 5]);
    p.verifyInvariants();
  });

  it('alloc(0) returns an empty array and changes nothing', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    expect(list(p.alloc(0))).toEqual([]);
    expect(p.availableSize()).toBe(10);
  });

  it('exact capacity passes; one page more returns null', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    expect(p.alloc(12)).toBeNull();
    expect(list(p.alloc(10))).toHaveLength(10);
    expect(p.alloc(2)).toBeNull();
    expect(p.availableSize()).toBe(0);
  });

  it('prefers the first run of whole pages with consecutive ids, else takes the first n', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    p.alloc(10);
    p.free([4, 5]);
    p.free([0, 1]);
    p.free([8, 9]);
    // Free list after the merge: [4, 5, 0, 1, 8, 9] — no run of 4, so first fit.
    expect(list(p.alloc(4))).toEqual([4, 5, 0, 1]);
    expect(list(p.inspect().free)).toEqual([8, 9]);
    p.verifyInvariants();
  });

  it('takes the first of two runs and keeps the order of what stays (entries before the run move up)', () => {
    const p = pool({ sizeTokens: 14, pageSize: 1 });
    p.alloc(15);
    p.free([9, 3, 4, 5, 11, 12, 13, 0]);
    expect(list(p.alloc(3))).toEqual([3, 4, 5]);
    expect(list(p.inspect().free)).toEqual([9, 11, 12, 13, 0]);
    expect(list(p.alloc(3))).toEqual([11, 12, 13]);
    expect(list(p.inspect().free)).toEqual([9, 0]);
    p.verifyInvariants();
  });

  it('keeps the order of what stays when the entries after the run move down', () => {
    const p = pool({ sizeTokens: 14, pageSize: 1 });
    p.alloc(15);
    p.free([7, 1, 2, 9, 14, 5]);
    expect(list(p.alloc(2))).toEqual([1, 2]);
    expect(list(p.inspect().free)).toEqual([7, 9, 14, 5]);
  });

  it('a run starts only at a whole page: a page boundary of the list holding a page-aligned slot', () => {
    // Page 2. Free list [0, 4, 5, 6, 7, 8, 9]: [4, 5, 6, 7] starts at offset 1 (not a page
    // boundary of the list) and [5, 6, 7, 8] at slot 5 (not page-aligned), so first fit.
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    p.alloc(10);
    p.free([0, 4, 5, 6, 7, 8, 9]);
    expect(list(p.alloc(4))).toEqual([0, 4, 5, 6]);
    // Free list [3, 7, 8, 9, 1, 5]: [7, 8] at offset 1 is consecutive but not a whole page;
    // [8, 9] at offset 2 is.
    const q = pool({ sizeTokens: 10, pageSize: 2 });
    q.alloc(12);
    q.free([3, 7, 8, 9, 1, 5]);
    expect(list(q.alloc(2))).toEqual([8, 9]);
    expect(list(q.inspect().free)).toEqual([3, 7, 1, 5]);
  });

  it('searches the free list alone while it is long enough; the pending chunks join only when it is short', () => {
    const p = pool({ sizeTokens: 7, pageSize: 1 });
    p.alloc(4); // free list [4, 5, 6, 7]
    p.free([0, 1, 2, 3]);
    expect(list(p.alloc(2))).toEqual([4, 5]); // from the free list; the pending run [0 … 3] waits
    expect(p.inspect().pending.map(list)).toEqual([[0, 1, 2, 3]]);
    expect(list(p.alloc(4))).toEqual([0, 1, 2, 3]); // short: [6, 7, 0, 1, 2, 3] has the run [0 … 3]
    expect(list(p.inspect().free)).toEqual([6, 7]);
  });

  it('finds a run that starts in the free list and goes on in the pending chunks', () => {
    const p = pool({ sizeTokens: 10, pageSize: 2 });
    p.alloc(12);
    p.free([8, 9, 10, 11, 2, 3]);
    expect(list(p.alloc(2))).toEqual([8, 9]); // free list [10, 11, 2, 3]
    p.free([4, 5, 6, 7]);
    p.free([0, 1]);
    // Short for 6: [10, 11, 2, 3] then the pending [4, 5, 6, 7], [0, 1] hold the run [2 … 7] across
    // the two (first fit would take [10, 11, 2, 3, 4, 5]).
    expect(list(p.alloc(6))).toEqual([2, 3, 4, 5, 6, 7]);
    expect(list(p.inspect().free)).toEqual([10, 11, 0, 1]);
    p.verifyInvariants();
  });

  it('a large pool flags a first-fit hand-out in the free list where it lies, and one that reaches into the pending chunks from a copy', () => {
    // 4,097 slots, of the order of the bench's pools.
    const p = pool({ sizeTokens: kLargePoolTokens, pageSize: 1 });
    p.alloc(p.size);
    p.free([10, 11, 12, 20, 30]);
    expect(list(p.alloc(1))).toEqual([10]); // merged: free list [11, 12, 20, 30]
    expect(list(p.alloc(4))).toEqual([11, 12, 20, 30]); // no run of 4: first fit, its last slot a run of its own
    p.verifyInvariants();
    p.free([99, 40, 50]);
    expect(list(p.alloc(1))).toEqual([99]); // free list [40, 50]
    p.free([60, 70]);
    expect(list(p.alloc(4))).toEqual([40, 50, 60, 70]); // first fit across the free list and the pending chunk
    p.verifyInvariants();
    expect(p.usedSlots()).toHaveLength(p.size);
  });

  it('null leaves the free list and the pending chunks as they were (no merge)', () => {
    const p = pool({ sizeTokens: 7, pageSize: 1 });
    p.alloc(6);
    p.free([0, 1]);
    const before = p.inspect();
    expect(p.alloc(5)).toBeNull();
    expect(p.inspect()).toEqual(before);
  });

  it('a corrupt free list (a held slot at its head) is refused before anything changes', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    p.alloc(4);
    p.pushFront(2);
    expect(() => p.verifyInvariants()).toThrow(InvariantError);
    expectRejected(p, () => p.alloc(4), HostDoubleAllocError, 'Double-alloc detected: slots already allocated: [2].');
  });

  it('a slot listed twice among those about to be handed out is named once per extra listing', () => {
    const p = pool({ sizeTokens: 7, pageSize: 1 });
    p.alloc(8);
    p.free([5]);
    p.pushFront(5); // free list [5] + pending [5]: slot 5 is free but listed twice
    expectRejected(p, () => p.alloc(2), HostDoubleAllocError, 'Double-alloc detected: slots already allocated: [5].');
  });
});

describe('host-pool:slot-pool,free', () => {
  it('returns the count and records the chunk (a copy) without touching the free list', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    const got = p.alloc(6) as Int32Array;
    const freeBefore = p.inspect().free;
    const chunk = got.slice(2, 6);
    expect(p.free(chunk)).toBe(4);
    chunk.fill(-1); // the caller may overwrite its array
    expect(p.inspect().free).toEqual(freeBefore);
    expect(p.inspect().pending.map(list)).toEqual([[2, 3, 4, 5]]);
    expect(p.availableSize()).toBe(8);
    expect(p.usedSlots()).toEqual([0, 1]);
    p.verifyInvariants();
  });

  it('has no page-alignment rule: single slots of a page-2 pool go back one at a time', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    p.alloc(4);
    expect(p.free([1])).toBe(1);
    expect(p.free([2])).toBe(1);
    expect(p.inspect().pending.map(list)).toEqual([[1], [2]]);
    expect(p.availableSize()).toBe(8);
    p.verifyInvariants();
  });

  it('takes plain arrays and typed arrays', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    p.alloc(4);
    expect(p.free([0, 1])).toBe(2);
    expect(p.free(Int32Array.of(2, 3))).toBe(2);
    expect(p.availableSize()).toBe(10);
  });

  it('names exactly the offending slots: free ones, and a held slot named twice (its second naming)', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    p.alloc(4); // 0 … 3 held
    const error = expectRejected(p, () => p.free([0, 5, 1, 0, 7, 7]), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [5, 0, 7, 7].');
    expect(error.slots).toEqual([5, 0, 7, 7]);
  });

  it('more slots than the pool holds are refused whole, naming the extra namings, typed or plain', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 }); // 10 slots
    p.alloc(10);
    const slots = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3];
    expectRejected(p, () => p.free(Int32Array.from(slots)), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [3].');
    expectRejected(p, () => p.free(slots), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [3].');
    expect(p.free(Int32Array.from(slots.slice(0, 10)))).toBe(10);
  });

  it('a slot given back and still pending is not allocated', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    p.alloc(4);
    p.free([0, 1]);
    expectRejected(p, () => p.free([1, 2]), HostDoubleFreeError, 'Double-free detected: slots not currently allocated: [1].');
  });
});

describe('host-pool:slot-pool,clear', () => {
  it('frees every slot in order, drops the pending chunks and the used flags', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    p.alloc(6);
    p.free([2, 3]);
    p.clear();
    expect(list(p.inspect().free)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(p.inspect().pending).toEqual([]);
    expect(p.usedSlots()).toEqual([]);
    expect(p.availableSize()).toBe(10);
    p.verifyInvariants();
  });
});

describe('host-pool:slot-pool,dcp', () => {
  // Kernel page 2 × DCP 4: widened page 8; logical slot i is row i // 4 on rank i % 4.
  const dcp = (): ProbedHostSlotPool => pool({ sizeTokens: 32, pageSize: 8, dcpSize: 4 });

  it('translates whole widened pages to each rank\'s physical rows', () => {
    const p = dcp();
    p.alloc(8); // page 0: logical 0 … 7
    const run = p.alloc(16) as Int32Array; // pages 1, 2: logical 8 … 23
    expect(list(run)).toEqual(Array.from({ length: 16 }, (_, i) => 8 + i));
    expect(list(p.physicalRows(run, 0))).toEqual([2, 3, 4, 5]);
    expect(list(p.physicalRows(run, 3))).toEqual([2, 3, 4, 5]);
    // Each widened page is one physical (kernel) page of 2 rows on every rank.
    expect(list(p.physicalRows(run.subarray(0, 8), 1))).toEqual([2, 3]);
  });

  it('keeps the order of the logical slots', () => {
    const p = dcp();
    expect(list(p.physicalRows([16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7], 2))).toEqual([4, 5, 0, 1]);
  });

  it('is the identity without DCP', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2 });
    expect(list(p.physicalRows([5, 2, 9], 0))).toEqual([5, 2, 9]);
  });

  it('alloc takes multiples of the widened page, not of the kernel page', () => {
    const p = dcp();
    expect(list(p.alloc(8))).toHaveLength(8);
    expectRejected(p, () => p.alloc(2), ArgumentError, ['The requested size should be a multiple of the page size.', 'alloc size 2', 'page size 8']);
  });
});

describe('host-pool:slot-pool,checks-off', () => {
  it('keeps no used flags: a double free goes through and verifyInvariants finds the duplicate', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2, checks: false });
    expect(p.usedSlots()).toBeNull();
    p.alloc(4);
    expect(p.free([0, 1])).toBe(2);
    expect(p.free([0, 1])).toBe(2);
    expect(p.availableSize()).toBe(10);
    expect(() => p.verifyInvariants()).toThrow(/slot 0 appears twice/);
  });

  it('hands out what the free list holds, without the double-alloc check', () => {
    const p = pool({ sizeTokens: 8, pageSize: 2, checks: false });
    p.alloc(4);
    p.pushFront(0);
    expect(list(p.alloc(4))).toEqual([0, 4, 5, 6]);
  });

  it('grows past the pool size when a caller error gives back more slots than exist', () => {
    const p = pool({ sizeTokens: 1, pageSize: 1, checks: false }); // 2 slots
    for (let i = 0; i < 3; i++) p.free([0, 1]);
    expect(p.availableSize()).toBe(8);
    expect(list(p.alloc(8))).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
    p.pushFront(1);
    p.pushFront(0);
    p.pushFront(1);
    expect(list(p.inspect().free)).toEqual([1, 0, 1]);
  });
});

describe('host-pool:slot-pool,invariants', () => {
  it('holds after every call of a mixed sequence', () => {
    const p = pool({ sizeTokens: 10, pageSize: 2 });
    const a = p.alloc(4) as Int32Array;
    p.verifyInvariants();
    const b = p.alloc(6) as Int32Array;
    p.free(a);
    p.verifyInvariants();
    expect(p.alloc(8)).toBeNull();
    expect(list(p.alloc(6))).toEqual([10, 11, 0, 1, 2, 3]);
    p.verifyInvariants();
    p.free(b);
    p.verifyInvariants();
    expect(p.availableSize()).toBe(6);
  });
});

describe('host-pool:slot-pool,provider', () => {
  it('hostSlotPoolProvider builds the reference pool behind the HostPool contract', () => {
    const created: HostPool = hostSlotPoolProvider.create({ sizeTokens: 8, pageSize: 2, dcpSize: 1, checks: true });
    expect(hostSlotPoolProvider.name).toBe('reference');
    expect(created).toBeInstanceOf(HostSlotPool);
    expect(created.size).toBe(10);
    expect(created.pageSize).toBe(2);
    const got = created.alloc(4) as Int32Array;
    expect(created.free(got)).toBe(4);
    created.clear();
    expect(created.availableSize()).toBe(10);
  });
});

// The hooks a planted bug overrides (the host pool mutants of `fuzz/`: unchecked, first-fit, no
// extra page): each is one override, and each turns an expectation of test_mem_pool_host.py false.
describe('host-pool:slot-pool,mutant-hooks', () => {
  class NoExtraPage extends ProbedHostSlotPool {
    protected override pageCountFor(sizeTokens: number, pageSize: number): number {
      return Math.floor(sizeTokens / pageSize);
    }
  }
  class FirstFit extends ProbedHostSlotPool {
    protected override findRunStart(): number {
      return 0;
    }
  }
  // Without the checks the marks are still made, as the engine's slot_used writes are.
  class NoFreeCheck extends ProbedHostSlotPool {
    protected override markFreed(indices: ArrayLike<number>): void {
      for (let i = 0; i < indices.length; i++) this.slotUsed?.unset(indices[i] as number);
    }
  }
  class NoAllocCheck extends ProbedHostSlotPool {
    protected override markHandOut(start: number, n: number): void {
      for (let i = start; i < start + n; i++) this.slotUsed?.set(this.listEntry(i));
    }
  }
  const config = { sizeTokens: 8, pageSize: 2, dcpSize: 1, checks: true } as const;

  it('no extra page: without the extra page the engine geometry has 8 slots, not 10', () => {
    expect(new NoExtraPage(config).size).toBe(8);
  });

  it('first fit: hands out [0, 1, 6, 7] where the engine takes the run [6, 7, 8, 9]', () => {
    const p = new FirstFit(config);
    p.alloc(10);
    p.free([0, 1]);
    p.free([6, 7, 8, 9]);
    expect(list(p.alloc(4))).toEqual([0, 1, 6, 7]);
  });

  it('unchecked: without the used checks a double free and a double alloc go through', () => {
    const f = new NoFreeCheck(config);
    f.alloc(4);
    f.free([0, 1]);
    expect(f.free([0, 1])).toBe(2);
    expect(() => f.verifyInvariants()).toThrow(InvariantError);

    const a = new NoAllocCheck(config);
    a.alloc(4);
    a.pushFront(0);
    expect(list(a.alloc(4))).toEqual([0, 4, 5, 6]);
    // Slot 0 is now held twice. The pool's own state is consistent again (0 is used and in no
    // list), so only an outside ledger sees this one: the reason kvfuzz keeps one.
    expect(() => a.verifyInvariants()).not.toThrow();
  });
});
