/**
 * Planted bugs in the plain reference allocator (`ReferenceAllocator`), one mechanism each: ways
 * the engine's paged allocator (`allocator/paged.py`, with the free groups and snapshots of
 * `allocator/base.py`) can go wrong. Each is a subclass that overrides the one method holding the
 * rule it breaks; the rules it does not touch, the in-line checks included, stay the reference's.
 * None of this code is reachable from the shipped package. The catalogue (`catalogue.ts`) names
 * them and says how the model must catch each.
 */
import { ReferenceAllocator, type AllocatorConfig, type DecodeBatch, type ExtendBatch } from '@kvfuzz/allocator-core';
import { buggyCountDecodePages, buggyCountExtendPages, buggyPlanExtendInto, type ExtendBug } from './buggy-planners.js';

/** Paged `free()` without `unique`: one page is released once per slot given. */
export class FreeWithoutUnique extends ReferenceAllocator {
  protected override uniquePages(pages: readonly number[]): number[] {
    return pages.slice();
  }
}

/** `free_segment` without its start assert: the stride trick on an unaligned start frees the wrong pages. */
export class SegmentUnalignedStart extends ReferenceAllocator {
  protected override checkSegmentAligned(): void {}
}

/** Freed pages appended instead of prepended: same sets, different reuse order (exact mode). */
export class AppendInsteadOfPrepend extends ReferenceAllocator {
  protected override prependFree(pages: readonly number[]): void {
    this.appendFree(pages);
  }
}

/** `clear()` starts the free list at page 0, so the padding page is handed out. */
export class ClearFromPageZero extends ReferenceAllocator {
  protected override initialFreePages(): number[] {
    return Array.from({ length: this.numPages }, (_, i) => i);
  }
}

/** A broken extend layout: the page cursor, the tail page or part 1 (see `ExtendBug`). */
export class BuggyExtendLayout extends ReferenceAllocator {
  constructor(
    config: AllocatorConfig,
    readonly bug: ExtendBug,
  ) {
    super(config);
  }

  protected override extendLayout(batch: ExtendBatch, freePages: readonly number[]): Int32Array {
    const out = new Int32Array(this.extendTokenCount(batch));
    buggyPlanExtendInto(this.bug, batch, this.pageSize, freePages, 0, out);
    return out;
  }
}

/** Decode advances the free list by a wrong page count. */
export class DecodeCountOffByOne extends ReferenceAllocator {
  protected override decodePageCount(batch: DecodeBatch): number {
    return buggyCountDecodePages(batch, this.pageSize);
  }
}

/** Extend counts new pages with floor instead of ceil. */
export class ExtendCountFloor extends ReferenceAllocator {
  protected override extendPageCount(batch: ExtendBatch): number {
    return buggyCountExtendPages(batch, this.pageSize);
  }
}

/** The capacity check moved after slicing: a short extend consumes the free list, then returns null. */
export class CapacityAfterSlicing extends ReferenceAllocator {
  protected override extendPaged(batch: ExtendBatch): Int32Array | null {
    const pageCount = this.extendPageCount(batch);
    const free = this.freePages.length;
    if (pageCount > free && pageCount <= free + this.stagedPages.length + 1) {
      this.takeFreePages(free);
      return null;
    }
    return super.extendPaged(batch);
  }
}

/** No merge of staged pages when an allocation runs short: spurious null under needSort. */
export class NoMergeWhenShort extends ReferenceAllocator {
  protected override mergeAndSortFree(): void {}
}

/** The group's segment representatives are never emptied, so the next group releases them again. */
export class GroupKeepsReps extends ReferenceAllocator {
  protected override emptyGroupReps(): void {}
}

/** A free group keeps the caller's arrays instead of copies, and reads them at the group's end. */
export class GroupKeepsViews extends ReferenceAllocator {
  protected override copyForGroup(indices: ArrayLike<number>): ArrayLike<number> {
    return indices;
  }
}

/** A nested `freeGroupBegin` silently resets the group, dropping what was queued (a leak; the engine's older base). */
export class NestedBeginResets extends ReferenceAllocator {
  override freeGroupBegin(): void {
    this.freeGroup = [];
    this.freeGroupReps = [];
  }
}

/** Accounting: `availableSize` counts pages queued in an open free group as already free. */
export class AvailableCountsQueued extends ReferenceAllocator {
  override availableSize(): number {
    const queued = this.freeGroup === null ? 0 : this.uniquePages(this.pagesOf(this.freeGroup.flatMap((slots) => Array.from(slots)))).length + this.freeGroupReps.flat().length;
    return super.availableSize() + queued * this.pageSize;
  }
}

/** `backupState` keeps live references to structures that are later changed in place; restore puts them back as they are now. */
export class BackupLiveReference extends ReferenceAllocator {
  override backupState(): unknown {
    return { free: this.freePages, staged: this.stagedPages, pageState: this.pageState };
  }

  override restoreState(state: unknown): void {
    // pageState is the reference's own array, put back as it is (typed never: it is assigned, never read here).
    const s = state as { free: number[]; staged: number[]; pageState: never };
    this.freePages = s.free;
    this.stagedPages = s.staged;
    this.pageState = s.pageState;
  }
}

/** A24: with checks on, `free` drops a slot past the pool (`≥ (numPages + 1) × pageSize`) instead of refusing the call. */
export class FreeIgnoresOutsidePool extends ReferenceAllocator {
  override free(indices: ArrayLike<number>): void {
    if (!this.checks) {
      super.free(indices);
      return;
    }
    const inside = Array.from(indices).filter((slot) => !(slot >= this.slotEnd));
    if (inside.length > 0) super.free(inside);
  }
}
