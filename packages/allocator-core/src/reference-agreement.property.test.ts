import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { BaseAllocator } from './base-allocator.js';
import { createAllocator } from './create-allocator.js';
import { PagedAllocator } from './paged-allocator.js';
import { ReferenceAllocator } from './reference/reference-allocator.js';
import { shuffled } from './test-support/rows.js';
import { TokenAllocator } from './token-allocator.js';
import type { AllocatorConfig, FreeSegment } from './types.js';

/** Allocator pages a pool draws: small, so frees, merges and shortages meet often. */
const kPagesMax = 12;
/** Requests an extend or decode batch draws. */
const kBatchMax = 4;

/** The paged allocator with its serials renumbered every few dozen list moves, so the rare path runs. */
class LowLimitPaged extends PagedAllocator {
  protected override readonly serialLimit: number = 96;
}
/** The token allocator with a low serial limit and its segment free taking runs of 2 pages a run at a time. */
class ShortRunsToken extends TokenAllocator {
  protected override readonly serialLimit: number = 96;
  protected override readonly runMin: number = 2;
  protected override readonly runBlock: number = 2;
}

/** A drawn variant: 0 a bad input of a kind both modes refuse or, checks on, of a kind only checks refuse; else a valid call. */
const bad = fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 8 }) });
const request = fc.record({ pick: fc.nat(), fresh: fc.boolean(), grow: fc.nat() });

type Op =
  | { readonly kind: 'alloc'; readonly pages: number; readonly bad: number }
  | { readonly kind: 'extend'; readonly reqs: readonly { pick: number; fresh: boolean; grow: number }[]; readonly bad: number }
  | { readonly kind: 'decode'; readonly reqs: readonly { pick: number; fresh: boolean }[]; readonly bad: number }
  | { readonly kind: 'free'; readonly pick: number; readonly from: number; readonly seed: number; readonly typed: boolean; readonly bad: number }
  | { readonly kind: 'segments'; readonly pick: number; readonly cuts: readonly number[]; readonly typed: boolean; readonly bad: number }
  | { readonly kind: 'groupBegin' }
  | { readonly kind: 'groupEnd' }
  | { readonly kind: 'backup' }
  | { readonly kind: 'restore'; readonly bad: number }
  | { readonly kind: 'clear' }
  | { readonly kind: 'junk'; readonly as: number; readonly values: readonly number[] };

const kOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('alloc' as const), pages: fc.integer({ min: 0, max: 5 }), bad }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('extend' as const), reqs: fc.array(request, { maxLength: kBatchMax }), bad }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('decode' as const), reqs: fc.array(fc.record({ pick: fc.nat(), fresh: fc.boolean() }), { maxLength: kBatchMax }), bad }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('free' as const), pick: fc.nat(), from: fc.nat(), seed: fc.nat(), typed: fc.boolean(), bad }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('segments' as const), pick: fc.nat(), cuts: fc.array(fc.nat(), { maxLength: 3 }), typed: fc.boolean(), bad }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'groupBegin' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'groupEnd' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'backup' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restore' as const), bad: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('junk' as const), as: fc.integer({ min: 0, max: 3 }), values: fc.array(fc.integer({ min: -3, max: 300 }), { maxLength: 6 }) }) },
);

/** What a call did, comparable across implementations: its result, or the error's name and message. */
type Outcome = { readonly value: number[] | null | undefined } | { readonly error: string };

function outcomeOf(call: () => unknown): Outcome {
  try {
    const value = call();
    return { value: value === null || value === undefined ? (value as null | undefined) : Array.from(value as Int32Array) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** The caller's side: the rows it holds (slots by position), slots it gave back, what it saved with a snapshot, whether a group is open. */
interface Caller {
  rows: number[][];
  gone: number[][];
  groupOpen: boolean;
  saved: { readonly fast: unknown; readonly ref: unknown; readonly rows: number[][] } | null;
}

const cloneRows = (rows: readonly number[][]): number[][] => rows.map((row) => row.slice());

/**
 * Runs `op` on both allocators, resolved against the caller's rows, and asserts the same outcome.
 * With checks off only calls the contract allows (or that every mode refuses) are made.
 */
function step(op: Op, fast: BaseAllocator, ref: ReferenceAllocator, caller: Caller, checks: boolean): void {
  const ps = fast.pageSize;
  const both = (call: (a: BaseAllocator | ReferenceAllocator) => unknown): Outcome => {
    const expected = outcomeOf(() => call(fast));
    const actual = outcomeOf(() => call(ref));
    expect(actual, `${JSON.stringify(op)}`).toEqual(expected);
    return expected;
  };
  const ok = (o: Outcome): o is { value: number[] | null | undefined } => 'value' in o;
  const badOn = checks ? op.kind !== 'groupBegin' && op.kind !== 'groupEnd' && op.kind !== 'backup' && op.kind !== 'clear' && op.kind !== 'junk' ? op.bad : 0 : 0;
  const badAlways = op.kind !== 'groupBegin' && op.kind !== 'groupEnd' && op.kind !== 'backup' && op.kind !== 'clear' && op.kind !== 'junk' ? op.bad : 0;
  switch (op.kind) {
    case 'alloc': {
      const size = badAlways === 1 ? -ps : badAlways === 2 ? op.pages * ps + 0.5 : badAlways === 3 && ps > 1 ? op.pages * ps + 1 : op.pages * ps;
      const o = both((a) => a.alloc(size));
      if (ok(o) && o.value) for (let i = 0; i < o.value.length; i += ps) caller.rows.push(o.value.slice(i, i + ps));
      return;
    }
    case 'extend':
    case 'decode': {
      // Each request a distinct row, or a new one.
      const used = new Set<number>();
      const rows = op.reqs.map((r) => {
        if (r.fresh || caller.rows.length === 0) return null;
        const at = r.pick % caller.rows.length;
        if (used.has(at)) return null;
        used.add(at);
        return caller.rows[at] as number[];
      });
      const pre = rows.map((row) => row?.length ?? 0);
      const lastLoc = rows.map((row) => (row === null || row.length === 0 ? -1 : (row[row.length - 1] as number)));
      const seq = op.kind === 'extend' ? op.reqs.map((r, i) => (pre[i] as number) + (r.grow % (2 * ps + 2))) : pre.map((p) => p + 1);
      const n = rows.length;
      if (n > 0 && badAlways === 1) lastLoc.pop();
      else if (n > 0 && badAlways === 2) seq[0] = op.kind === 'extend' ? (pre[0] as number) - 1 : 0;
      else if (n > 0 && badAlways === 3) lastLoc[0] = 2 ** 31;
      else if (n > 0 && badOn === 4) lastLoc[0] = (lastLoc[0] as number) + 1;
      const o = op.kind === 'extend' ? both((a) => a.allocExtend({ prefixLens: pre, seqLens: seq, lastLoc })) : both((a) => a.allocDecode({ seqLens: seq, lastLoc }));
      if (!ok(o) || !o.value) return;
      let at = 0;
      rows.forEach((row, i) => {
        const grown = o.value!.slice(at, at + (seq[i] as number) - (pre[i] as number));
        at += grown.length;
        if (row === null) caller.rows.push(grown);
        else row.push(...grown);
      });
      return;
    }
    case 'free': {
      if (caller.rows.length === 0 && badOn === 0) return;
      const at = op.pick % Math.max(1, caller.rows.length);
      const row = caller.rows[at] ?? [];
      const from = op.from % (row.length + 1);
      let slots = shuffled(row.slice(from), op.seed);
      if (op.seed % 3 === 0 && slots.length > 0) slots.push(slots[0] as number);
      const outside = fast.numPages * ps + ps;
      if (badOn === 1) slots.push(op.seed % ps);
      else if (badOn === 2) slots.push(outside + (op.seed % 3));
      else if (badOn === 3) slots.unshift(-1 - (op.seed % 2));
      else if (badOn === 4) slots.push(0.5);
      else if (badOn === 5 && fast.inspect().free.length > 0) slots.push((fast.inspect().free[0] as number) * ps);
      else if (badOn === 6 && caller.gone.length > 0) slots.push(...(caller.gone[op.seed % caller.gone.length] as number[]));
      const given = op.typed && badOn !== 4 ? Int32Array.from(slots) : slots;
      const o = both((a) => a.free(given));
      if (!ok(o)) return;
      caller.gone.push(slots);
      // The pages of the slots given back are gone: the row keeps the whole pages before them.
      if (from === 0) caller.rows.splice(at, 1);
      else if (from < row.length) row.length = Math.floor(from / ps) * ps;
      return;
    }
    case 'segments': {
      if (caller.rows.length === 0 && badAlways === 0) return;
      const at = op.pick % Math.max(1, caller.rows.length);
      const row = caller.rows[at] ?? [];
      const pages = Math.ceil(row.length / ps);
      const cuts = op.cuts.map((c) => (c % (pages + 1)) * ps).sort((a, b) => a - b);
      const start = cuts[0] ?? 0;
      const bounds = [...cuts, row.length].map((c) => Math.min(c, row.length));
      const segments: { indices: number[] | Int32Array; startPos: number }[] = [];
      for (let i = 0; i + 1 < bounds.length; i++) segments.push({ indices: row.slice(bounds[i], bounds[i + 1]), startPos: bounds[i] as number });
      if (segments.length === 0) segments.push({ indices: row.slice(start), startPos: start });
      const first = segments.find((s) => s.indices.length > 0);
      let argument: unknown = segments;
      if (badAlways === 1 && first !== undefined && ps > 1) first.startPos += 1 + (op.pick % (ps - 1));
      else if (badAlways === 2 && segments.filter((s) => s.indices.length > 0).length >= 2) segments.reverse();
      else if (badAlways === 3) argument = { indices: row, startPos: 0 };
      else if (badOn === 4 && first !== undefined && first.indices.length >= 2) (first.indices as number[]).reverse();
      else if (badOn === 5 && first !== undefined) first.indices = [...first.indices.slice(0, ps), ...first.indices.slice(0, ps)];
      else if (badOn === 6 && fast.inspect().free.length > 0) segments.push({ indices: [(fast.inspect().free[0] as number) * ps], startPos: Math.ceil((row.length + 1) / ps) * ps });
      else if (badOn === 7 && first !== undefined) (first.indices as number[])[first.indices.length - 1] = -ps;
      if (op.typed) for (const s of segments) s.indices = Int32Array.from(s.indices);
      const o = both((a) => a.freeSegments(argument as FreeSegment[]));
      if (!ok(o)) return;
      if (start === 0) caller.rows.splice(at, 1);
      else row.length = Math.min(row.length, start);
      return;
    }
    case 'groupBegin':
      if (ok(both((a) => a.freeGroupBegin()))) caller.groupOpen = true;
      return;
    case 'groupEnd':
      if (ok(both((a) => a.freeGroupEnd()))) caller.groupOpen = false;
      return;
    case 'backup': {
      const f = outcomeOf(() => fast.backupState());
      const r = outcomeOf(() => ref.backupState());
      expect('error' in r ? r.error : 'ok').toBe('error' in f ? f.error : 'ok');
      if (!caller.groupOpen) caller.saved = { fast: fast.backupState(), ref: ref.backupState(), rows: cloneRows(caller.rows) };
      return;
    }
    case 'restore': {
      const saved = caller.saved;
      // 1: something backupState did not return; 2: the other implementation's snapshot (one format).
      const o =
        op.bad === 1 || saved === null
          ? both((a) => a.restoreState({ kind: 'kvfuzz.allocator-state' }))
          : op.bad === 2
            ? both((a) => a.restoreState(a === fast ? saved.ref : saved.fast))
            : both((a) => a.restoreState(a === fast ? saved.fast : saved.ref));
      if (ok(o) && saved !== null) caller.rows = cloneRows(saved.rows);
      return;
    }
    case 'clear':
      both((a) => a.clear());
      caller.rows = [];
      caller.groupOpen = false;
      return;
    case 'junk': {
      // Checks on only: anything at all, which both must refuse or take alike.
      if (!checks) return;
      const v = op.values;
      if (op.as === 0) both((a) => a.free(Int32Array.from(v)));
      else if (op.as === 1) both((a) => a.freeSegments([{ indices: Int32Array.from(v), startPos: (v[0] ?? 0) * ps }]));
      else if (op.as === 2) both((a) => a.allocExtend({ prefixLens: v.map((x) => Math.abs(x) % 9), seqLens: v.map((x) => (Math.abs(x) % 9) + 2), lastLoc: v }));
      else both((a) => a.allocDecode({ seqLens: v.map((x) => (Math.abs(x) % 9) + 1), lastLoc: v }));
      // The rows may no longer be what the allocator thinks: checks on refuses whatever that makes wrong.
      return;
    }
  }
}

/** Same free list, staged pages, availability, snapshot and invariants. */
function expectSameState(fast: BaseAllocator, ref: ReferenceAllocator, caller: Caller, where: string): void {
  expect(ref.inspect(), where).toEqual(fast.inspect());
  expect(ref.availableSize(), where).toBe(fast.availableSize());
  if (caller.groupOpen) return;
  expect(ref.backupState(), where).toEqual(fast.backupState());
  fast.verifyInvariants();
  ref.verifyInvariants();
}

function fastAllocator(config: AllocatorConfig, variant: number): BaseAllocator {
  const pageSize = (config.kernelPageSize ?? 1) * (config.dcpSize ?? 1);
  if (variant === 0) return createAllocator(config);
  return pageSize === 1 ? new ShortRunsToken(config) : new LowLimitPaged(config);
}

/**
 * The fast allocators (`PagedAllocator`, `TokenAllocator`) against the plain reference, call by
 * call over every command, valid and bad, in both check modes: the same results, the same errors,
 * the same free list and staged pages after every step, page sizes 1 and above (non-powers of two
 * too), DCP sizes, needSort on and off.
 */
describe('allocator-core:reference,agreement', () => {
  test.prop(
    [
      fc.constantFrom(1, 2, 3, 4),
      fc.constantFrom(1, 2, 4),
      fc.integer({ min: 1, max: kPagesMax }),
      fc.boolean(),
      fc.boolean(),
      fc.integer({ min: 0, max: 1 }),
      fc.array(kOp, { maxLength: 60, size: 'max' }),
    ],
    { numRuns: 600 },
  )('the fast allocator answers every call as the plain reference does', (kernelPageSize, dcpSize, pages, needSort, checks, variant, ops) => {
    const config: AllocatorConfig = { sizeTokens: pages * kernelPageSize * dcpSize, kernelPageSize, dcpSize, needSort, checks };
    const fast = fastAllocator(config, variant);
    const ref = new ReferenceAllocator(config);
    const caller: Caller = { rows: [], gone: [], groupOpen: false, saved: null };
    expectSameState(fast, ref, caller, 'after create');
    ops.forEach((op, i) => {
      step(op, fast, ref, caller, checks);
      expectSameState(fast, ref, caller, `step ${i}: ${JSON.stringify(op)}`);
    });
    // Drain: close the group, give every row back, and allocate the whole pool.
    if (caller.groupOpen) step({ kind: 'groupEnd' }, fast, ref, caller, checks);
    for (const row of caller.rows) if (row.length > 0) expect(outcomeOf(() => ref.free(row))).toEqual(outcomeOf(() => fast.free(row)));
    expect(outcomeOf(() => ref.alloc(ref.availableSize()))).toEqual(outcomeOf(() => fast.alloc(fast.availableSize())));
    expectSameState(fast, ref, caller, 'after the drain');
  });
});
