import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DoubleFreeError, KvfuzzError, LastLocError, SlotRangeError, StateError } from './errors.js';
import { drawnPage, expectRefusedExactly, expectStates, pickResolver, probed } from './test-support/serial-checks.js';
import { TokenAllocator } from './token-allocator.js';
import type { AllocatorConfig } from './types.js';

const ProbedTokenAllocator = probed(TokenAllocator, false);
/** Renumbers its serials every few dozen appends, so the rare renumbering runs in every case. */
const LowLimitTokenAllocator = probed(TokenAllocator, true);

/**
 * `Base` whose segment free takes runs of 2 consecutive pages a run at a time and asks after
 * every 2 pages copied whether they were one run, so the run path meets the small pools here.
 */
function shortRuns(Base: typeof ProbedTokenAllocator): typeof ProbedTokenAllocator {
  return class extends (Base as unknown as typeof TokenAllocator) {
    protected override readonly runMin: number = 2;
    protected override readonly runBlock: number = 2;
  } as unknown as typeof ProbedTokenAllocator;
}
const kClasses = [ProbedTokenAllocator, LowLimitTokenAllocator, shortRuns(ProbedTokenAllocator), shortRuns(LowLimitTokenAllocator)] as const;

/** Pool sizes: small, so drawn slots often hit held, free, queued and staged pages. */
const kSizeTokensMax = 12;

type Op =
  | { readonly kind: 'alloc'; readonly n: number }
  /** typed: as an Int32Array (the direct path to the list), else a plain array (the general path). */
  | { readonly kind: 'free'; readonly slots: readonly number[]; readonly typed: boolean }
  | { readonly kind: 'segments'; readonly rows: readonly (readonly number[])[] }
  | { readonly kind: 'decode'; readonly seqLens: readonly number[]; readonly lastLoc: readonly number[] }
  | { readonly kind: 'group' };

/** A drawn slot (page size 1: a page). */
const slot = drawnPage(-1, kSizeTokensMax + 1);
const kOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('alloc' as const), n: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ kind: fc.constant('free' as const), slots: fc.array(slot, { maxLength: 6 }), typed: fc.boolean() }),
  fc.record({ kind: fc.constant('segments' as const), rows: fc.array(fc.array(slot, { minLength: 1, maxLength: 3 }), { maxLength: 3 }) }),
  fc.integer({ min: 1, max: 4 }).chain((n) =>
    fc.record({
      kind: fc.constant('decode' as const),
      seqLens: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: n, maxLength: n }),
      lastLoc: fc.array(slot, { minLength: n, maxLength: n }),
    }),
  ),
  fc.constant({ kind: 'group' as const }),
);

/**
 * The checks-on token allocator against a set of held pages: every call is refused exactly when
 * the set says a page is not held (or a slot lies outside the pool), a refused call changes
 * nothing, and what an allocation hands out was never held.
 */
describe('allocator-core:token,serial-checks', () => {
  // size 'max': without it fast-check draws far fewer ops than maxLength allows.
  // variant: bit 0 a low serial limit, bit 1 short runs.
  test.prop([fc.integer({ min: 1, max: kSizeTokensMax }), fc.boolean(), fc.integer({ min: 0, max: 3 }), fc.array(kOp, { maxLength: 80, size: 'max' })], { numRuns: 400 })(
    'agrees with a held-page set on every alloc, free, segment free, decode and group',
    (sizeTokens, needSort, variant, ops) => {
      const config: AllocatorConfig = { sizeTokens, needSort, checks: true };
      const allocator = new kClasses[variant]!(config);
      const held = new Set<number>();
      const queued = new Set<number>();
      let groupOpen = false;
      const inPool = (s: number): boolean => Number.isInteger(s) && s >= 0 && s <= sizeTokens;
      for (const drawn of ops) {
        const resolve = pickResolver(held);
        const op: Op =
          drawn.kind === 'free'
            ? { kind: 'free', slots: drawn.slots.map(resolve), typed: drawn.typed }
            : drawn.kind === 'segments'
              ? { kind: 'segments', rows: drawn.rows.map((row) => row.map(resolve)) }
              : drawn.kind === 'decode'
                ? { ...drawn, lastLoc: drawn.lastLoc.map((s, i) => (drawn.seqLens[i] === 1 && s % 2 === 0 ? -1 : resolve(s))) }
                : drawn;
        let expectRefusal: (new (...args: never[]) => KvfuzzError) | null = null;
        const run = (): void => {
          if (op.kind === 'alloc') {
            const out = allocator.alloc(op.n);
            if (out !== null) {
              for (const s of out) {
                expect(held.has(s) || queued.has(s) || s === 0).toBe(false);
                held.add(s);
              }
            }
          } else if (op.kind === 'free') {
            if (op.slots.some((s) => !inPool(s))) expectRefusal = SlotRangeError;
            else if (op.slots.some((s) => !held.has(s))) expectRefusal = DoubleFreeError;
            allocator.free(op.typed ? Int32Array.from(op.slots) : op.slots);
            for (const s of op.slots) {
              held.delete(s);
              if (groupOpen) queued.add(s);
            }
          } else if (op.kind === 'segments') {
            // One slot per page: consecutive rows must not share a page, i.e. strictly increasing starts.
            const segments = op.rows.map((indices, i) => ({ indices: Int32Array.from(indices), startPos: 8 * i }));
            const all = op.rows.flat();
            if (all.some((s) => !inPool(s))) expectRefusal = SlotRangeError;
            else if (all.some((s) => !held.has(s)) || new Set(all).size !== all.length) expectRefusal = DoubleFreeError;
            allocator.freeSegments(segments);
            for (const s of all) {
              held.delete(s);
              if (groupOpen) queued.add(s);
            }
          } else if (op.kind === 'decode') {
            // At page 1 the contract's lastLoc rule leaves one case: an empty row takes −1.
            const fits = op.seqLens.every((seq, i) => seq !== 1 || op.lastLoc[i] === -1);
            if (!fits) expectRefusal = LastLocError;
            const out = allocator.allocDecode({ seqLens: op.seqLens, lastLoc: op.lastLoc });
            if (out !== null) {
              for (const s of out) {
                expect(held.has(s) || queued.has(s) || s === 0).toBe(false);
                held.add(s);
              }
            }
          } else if (groupOpen) {
            allocator.freeGroupEnd();
            queued.clear();
            groupOpen = false;
          } else {
            allocator.freeGroupBegin();
            groupOpen = true;
          }
        };
        expectRefusedExactly(allocator, run, () => expectRefusal);
        expectStates(allocator.states(), sizeTokens, held, queued);
        if (!groupOpen) allocator.verifyInvariants();
        if (!groupOpen) expect(allocator.availableSize()).toBe(sizeTokens - held.size);
      }
    },
  );

  it('refuses a snapshot whose page states disagree with its lists, changing nothing', () => {
    const allocator = new TokenAllocator({ sizeTokens: 8, needSort: false, checks: true });
    allocator.alloc(2);
    const snapshot = allocator.backupState() as { readonly pageState: Uint8Array };
    const pageState = snapshot.pageState.slice();
    pageState[5] = 1; // page 5 is in the free list
    const before = allocator.inspect();
    expect(() => allocator.restoreState({ ...snapshot, pageState })).toThrow(StateError);
    expect(allocator.inspect()).toEqual(before);
    expect(() => allocator.restoreState({ ...snapshot, pageState })).toThrow(/page 5 with state 1, but its lists make it 0/);
  });

  it('control: a held page stays held across many renumberings, and its free is accepted once', () => {
    const allocator = new LowLimitTokenAllocator({ sizeTokens: 4, needSort: false, checks: true });
    const kept = allocator.alloc(1) as Int32Array;
    for (let i = 0; i < 500; i++) allocator.free(allocator.alloc(3) as Int32Array);
    allocator.verifyInvariants();
    allocator.free(kept);
    expect(() => allocator.free(kept)).toThrow(DoubleFreeError);
  });
});
