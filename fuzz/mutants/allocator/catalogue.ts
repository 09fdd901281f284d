import { createReferenceAllocator, ReferenceAllocator, type AllocatorConfig, type AllocatorProvider, type PageAllocator } from '@kvfuzz/allocator-core';
import { createSkipsDcpDivisibility, sizeCeilHidden, sizeCeilPages } from './config-mutants.js';
import { GroupEndChecksLate, GroupEndNotAtomic } from './group-end-mutants.js';
import type { ExtendBug } from './buggy-planners.js';
import {
  AppendInsteadOfPrepend,
  AvailableCountsQueued,
  BackupLiveReference,
  BuggyExtendLayout,
  CapacityAfterSlicing,
  ClearFromPageZero,
  DecodeCountOffByOne,
  ExtendCountFloor,
  FreeIgnoresOutsidePool,
  FreeWithoutUnique,
  GroupKeepsReps,
  GroupKeepsViews,
  NestedBeginResets,
  NoMergeWhenShort,
  SegmentUnalignedStart,
} from './paged-mutants.js';

/** A planted bug the allocator model must catch. */
export interface AllocatorMutant {
  /** Stable name, used by `--mutant` and the kill table. */
  readonly name: string;
  readonly mechanism: string;
  /** Order-only bugs keep every set right and show only against the reference's exact page ids. */
  readonly mode: 'contract' | 'exact';
  /**
   * With which in-line checks setting the bug can be caught: `both`, or `on` for a bug in what
   * only checks-on refuses (A24, A25), whose inputs are undefined behaviour with checks off.
   */
  readonly checks: 'both' | 'on';
  readonly provider: AllocatorProvider;
  /**
   * Set when checks on refuse every call that shows the bug before the bug can act on it, so the
   * model cannot see it with checks on: a call that shows it. The in-line check is then what
   * catches the bug, and the catalogue test asserts that it does.
   */
  readonly caughtByCheck?: CheckedTrigger;
}

/** A call that shows a planted bug with checks off and that the in-line checks refuse with checks on. */
export interface CheckedTrigger {
  /** The allocator's configuration; the test sets `checks`. */
  readonly config: Omit<AllocatorConfig, 'checks'>;
  /** Builds the state the call needs and returns the call. */
  readonly setUp: (allocator: PageAllocator) => () => void;
  /** The error class name the in-line check throws for the call. */
  readonly refusedWith: string;
}

/** The bug lives in the paged allocator's rules; at page size 1 the run gets the plain reference unchanged. */
function paged(name: string, build: (config: AllocatorConfig) => ReferenceAllocator): AllocatorProvider {
  return {
    name,
    create(config: AllocatorConfig): PageAllocator {
      const pageSize = (config.kernelPageSize ?? 1) * (config.dcpSize ?? 1);
      return pageSize === 1 ? createReferenceAllocator(config) : build(config);
    },
  };
}

function mutant(name: string, mechanism: string, build: (config: AllocatorConfig) => ReferenceAllocator, mode: 'contract' | 'exact' = 'contract'): AllocatorMutant {
  return { name, mechanism, mode, checks: 'both', provider: paged(name, build) };
}

/** A bug in every allocator the provider builds, at every page size (contract mode). */
function anyPage(name: string, mechanism: string, checks: 'both' | 'on', create: (config: AllocatorConfig) => PageAllocator): AllocatorMutant {
  return { name, mechanism, mode: 'contract', checks, provider: { name, create } };
}

/** A row of two pages given back from row position 2 on: an unaligned segment start. */
function unalignedTail(allocator: PageAllocator): () => void {
  const row = allocator.alloc(2 * allocator.pageSize) as Int32Array;
  return () => allocator.freeSegments([{ indices: row.subarray(2), startPos: 2 }]);
}

const layout = (bug: ExtendBug) => (config: AllocatorConfig) => new BuggyExtendLayout(config, bug);

/**
 * Every allocator mutant: first the paged allocator's bugs in the order of its code paths (free,
 * the extend and decode layouts and page counts, free groups and their accounting, `backupState`),
 * then bugs in what CONTRACT.md asks beyond the engine (the rule each breaks is in its mechanism).
 */
export const kAllocatorMutants: readonly AllocatorMutant[] = [
  mutant('free-without-unique', 'paged free releases a page once per slot given (no unique)', (c) => new FreeWithoutUnique(c)),
  {
    ...mutant('segment-unaligned-start', 'free_segment accepts an unaligned start; the stride trick frees the wrong pages', (c) => new SegmentUnalignedStart(c)),
    // Checks on, the row-structure check refuses a segment whose first slot is not a page's first slot.
    caughtByCheck: { config: { sizeTokens: 32, kernelPageSize: 4, needSort: false }, setUp: unalignedTail, refusedWith: 'SegmentError' },
  },
  mutant('append-instead-of-prepend', 'freed pages go to the back of the free list (reuse order only)', (c) => new AppendInsteadOfPrepend(c), 'exact'),
  mutant('clear-from-page-zero', 'clear() starts the free list at the reserved page 0', (c) => new ClearFromPageZero(c)),
  mutant('extend-cursor-inclusive', 'extend page cursor sums over j <= i', layout('cursor-inclusive')),
  mutant('extend-tail-first-page', "extend tail lands on the first, not the last, page of the request's range", layout('tail-first-page')),
  mutant('extend-part1-unbounded', 'extend part 1 fills to the page end even past seq', layout('part1-unbounded')),
  mutant('decode-count-mod-zero', 'decode counts new pages with seq % ps == 0', (c) => new DecodeCountOffByOne(c)),
  mutant('extend-count-floor', 'extend counts new pages with floor instead of ceil', (c) => new ExtendCountFloor(c)),
  mutant('capacity-after-slicing', 'a short extend consumes the free list, then returns null', (c) => new CapacityAfterSlicing(c)),
  mutant('no-merge-when-short', 'staged pages are never merged: spurious null under needSort', (c) => new NoMergeWhenShort(c)),
  mutant('group-keeps-reps', "a free group's segment representatives are never cleared", (c) => new GroupKeepsReps(c)),
  mutant('group-keeps-views', "a free group keeps the caller's arrays, not copies", (c) => new GroupKeepsViews(c)),
  mutant('nested-begin-resets', 'a nested freeGroupBegin resets the group (drops pending frees)', (c) => new NestedBeginResets(c)),
  mutant('available-counts-queued', 'availableSize counts pages queued in an open free group as free (accounting)', (c) => new AvailableCountsQueued(c)),
  mutant('backup-live-reference', 'backupState keeps live references; restore does not roll back', (c) => new BackupLiveReference(c)),
  anyPage('create-skips-dcp-divisibility', 'create floors a sizeTokens that dcpSize does not divide instead of refusing it (A2)', 'both', createSkipsDcpDivisibility),
  anyPage('size-ceil-pages', 'a sizeTokens that is not a page multiple gets ceil(sizeTokens / pageSize) pages (A3)', 'both', sizeCeilPages),
  anyPage('size-ceil-hidden', 'numPages reports floor(sizeTokens / pageSize), but the free list holds the ceil page past it (A3)', 'both', sizeCeilHidden),
  { ...mutant('free-ignores-outside-pool', 'with checks on, free drops a slot past the pool instead of refusing the call (A24)', (c) => new FreeIgnoresOutsidePool(c)), checks: 'on' },
  anyPage('group-end-not-atomic', 'a group refused at its end for a bad give-back first releases its good pages and closes (A17)', 'on', (c) => new GroupEndNotAtomic(c)),
  anyPage('group-end-checks-late', "a group's plain frees are checked at freeGroupEnd against the states then: a bad page handed out meanwhile is released (A24)", 'on', (c) => new GroupEndChecksLate(c)),
];

export function findAllocatorMutant(name: string): AllocatorMutant | undefined {
  return kAllocatorMutants.find((m) => m.name === name);
}

/**
 * A mutant's provider by name, for the module files under `providers/`.
 *
 * @throws Error when no mutant has that name.
 */
export function allocatorMutantProvider(name: string): AllocatorProvider {
  const mutant = findAllocatorMutant(name);
  if (mutant === undefined) throw new Error(`no allocator mutant named ${name}`);
  return mutant.provider;
}
