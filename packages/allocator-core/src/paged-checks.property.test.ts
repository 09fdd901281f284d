import { fc, test } from '@fast-check/vitest';
import { describe, expect, it, vi } from 'vitest';
import { BaseAllocator } from './base-allocator.js';
import { DoubleFreeError, KvfuzzError, SlotRangeError } from './errors.js';
import { PagedAllocator } from './paged-allocator.js';
import { drawnPage, expectRefusedExactly, expectStates, pickResolver, probed } from './test-support/serial-checks.js';
import type { AllocatorConfig } from './types.js';

const ProbedPagedAllocator = probed(PagedAllocator, false);
/** Renumbers its serials every few dozen list moves, so the rare renumbering runs in every case. */
const LowLimitPagedAllocator = probed(PagedAllocator, true);

/** Pool sizes in pages: small, so drawn pages often hit held, free, queued and staged ones. */
const kPagesMax = 10;

type Op =
  | { readonly kind: 'alloc'; readonly pages: number }
  | { readonly kind: 'free'; readonly slots: readonly number[] }
  | { readonly kind: 'segments'; readonly rows: readonly (readonly number[])[] }
  | { readonly kind: 'group' }
  | { readonly kind: 'restore' };

const page = drawnPage(-1, kPagesMax + 1);
const kOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('alloc' as const), pages: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('free' as const), slots: fc.array(fc.tuple(page, fc.nat()), { maxLength: 6 }).map((picks) => picks.map(([p, offset]) => p * 2 ** 16 + (offset % 2 ** 16))) }),
  fc.record({ kind: fc.constant('segments' as const), rows: fc.array(fc.array(page, { minLength: 1, maxLength: 3 }), { maxLength: 3 }) }),
  fc.constant({ kind: 'group' as const }),
  fc.constant({ kind: 'restore' as const }),
);

/**
 * The checks-on paged allocator (serials over a LIFO list: pages given back go to the front, where
 * handed-out pages' places are reused) against a set of held pages: every call is refused exactly
 * when the set says a page is not held (or a slot lies outside the pool), a refused call changes
 * nothing, and what an allocation hands out was never held.
 */
describe('allocator-core:paged,serial-checks', () => {
  test.prop(
    [fc.integer({ min: 1, max: kPagesMax }), fc.constantFrom(2, 4), fc.boolean(), fc.boolean(), fc.array(kOp, { maxLength: 80, size: 'max' })],
    { numRuns: 200 },
  )('agrees with a held-page set on every alloc, free, segment free, group and snapshot', (pages, ps, needSort, lowLimit, ops) => {
    const config: AllocatorConfig = { sizeTokens: pages * ps, kernelPageSize: ps, needSort, checks: true };
    const allocator = lowLimit ? new LowLimitPagedAllocator(config) : new ProbedPagedAllocator(config);
    const held = new Set<number>();
    const queued = new Set<number>();
    let groupOpen = false;
    let snapshot: { readonly state: unknown; readonly held: readonly number[] } | null = null;
    for (const drawn of ops) {
      const resolve = pickResolver(held);
      let expectRefusal: (new (...args: never[]) => KvfuzzError) | null = null;
      const run = (): void => {
        if (drawn.kind === 'alloc') {
          const out = allocator.alloc(drawn.pages * ps);
          if (out !== null) {
            for (let i = 0; i < out.length; i += ps) {
              const p = (out[i] as number) / ps;
              expect(held.has(p) || queued.has(p) || p === 0).toBe(false);
              held.add(p);
            }
          }
        } else if (drawn.kind === 'free') {
          const slots = drawn.slots.map((s) => resolve(Math.floor(s / 2 ** 16)) * ps + ((s % 2 ** 16) % ps));
          const freed = slots.map((s) => Math.floor(s / ps));
          if (slots.some((s) => s < 0 || s >= (pages + 1) * ps)) expectRefusal = SlotRangeError;
          else if (freed.some((p) => !held.has(p))) expectRefusal = DoubleFreeError;
          allocator.free(slots);
          for (const p of freed) {
            held.delete(p);
            if (groupOpen) queued.add(p);
          }
        } else if (drawn.kind === 'segments') {
          // Whole pages, each row far enough after the one before that no two rows share a page.
          const rows = drawn.rows.map((row) => row.map(resolve));
          const segments = rows.map((row, i) => {
            const indices = new Int32Array(row.length * ps);
            row.forEach((p, j) => {
              for (let o = 0; o < ps; o++) indices[j * ps + o] = p * ps + o;
            });
            return { indices, startPos: 4 * i * ps };
          });
          const all = rows.flat();
          if (all.some((p) => p < 0 || p > pages)) expectRefusal = SlotRangeError;
          else if (all.some((p) => !held.has(p)) || new Set(all).size !== all.length) expectRefusal = DoubleFreeError;
          allocator.freeSegments(segments);
          for (const p of all) {
            held.delete(p);
            if (groupOpen) queued.add(p);
          }
        } else if (drawn.kind === 'group') {
          if (groupOpen) {
            allocator.freeGroupEnd();
            queued.clear();
          } else {
            allocator.freeGroupBegin();
          }
          groupOpen = !groupOpen;
        } else if (!groupOpen) {
          if (snapshot === null) {
            snapshot = { state: allocator.backupState(), held: [...held] };
          } else {
            allocator.restoreState(snapshot.state);
            held.clear();
            for (const p of snapshot.held) held.add(p);
            snapshot = null;
          }
        }
      };
      expectRefusedExactly(allocator, run, () => expectRefusal);
      expectStates(allocator.states(), pages, held, queued);
      if (!groupOpen) allocator.verifyInvariants();
      if (!groupOpen) expect(allocator.availableSize()).toBe((pages - held.size) * ps);
    }
  });

  it('after a restore, frees that move the list to the far end rebase its serials in place: no renumbering per free', () => {
    // renumber is private; the spy counts its calls through the prototype (test-only).
    const renumber = vi.spyOn(BaseAllocator.prototype as unknown as { renumber(): void }, 'renumber');
    const allocator = new PagedAllocator({ sizeTokens: 64 * 4, kernelPageSize: 4, needSort: false, checks: true });
    const held = allocator.alloc(48 * 4) as Int32Array;
    allocator.restoreState(allocator.backupState());
    renumber.mockClear();
    // The restore put the list at the start of its buffer: the first prepend finds no room.
    for (let page = 0; page < 48; page++) allocator.free(held.subarray(page * 4, page * 4 + 1));
    expect(renumber).not.toHaveBeenCalled();
    renumber.mockRestore();
    allocator.verifyInvariants();
    expect(() => allocator.free(held.subarray(0, 1))).toThrow(DoubleFreeError);
  });

  it('after a restore, a free of the pages held before it takes the one-pass path (the front serial starts above every held page)', () => {
    // The general path is the base class's collect (the one-pass path overrides it and falls back to it).
    const general = vi.spyOn(BaseAllocator.prototype as unknown as { collectFreeChecked(indices: ArrayLike<number>, n: number): number }, 'collectFreeChecked');
    const allocator = new PagedAllocator({ sizeTokens: 64 * 4, kernelPageSize: 4, needSort: false, checks: true });
    const rows = [allocator.alloc(16 * 4), allocator.alloc(16 * 4)] as Int32Array[];
    allocator.restoreState(allocator.backupState());
    for (const row of rows) allocator.free(row);
    expect(general).not.toHaveBeenCalled();
    general.mockRestore();
    allocator.verifyInvariants();
    expect(allocator.availableSize()).toBe(64 * 4);
    expect(() => allocator.free(rows[0] as Int32Array)).toThrow(DoubleFreeError);
  });

  it('control: a held page stays held while its place in the list is reused and renumbered, and its free is accepted once', () => {
    const allocator = new LowLimitPagedAllocator({ sizeTokens: 16, kernelPageSize: 4, needSort: false, checks: true });
    const kept = allocator.alloc(4) as Int32Array;
    for (let i = 0; i < 500; i++) allocator.free(allocator.alloc(12) as Int32Array);
    allocator.verifyInvariants();
    allocator.free(kept);
    expect(() => allocator.free(kept)).toThrow(DoubleFreeError);
  });
});
