/**
 * Planted bugs in the reference paged allocator, one mechanism each: ways the engine's paged
 * allocator (`allocator/paged.py`, with the free groups and snapshots of `allocator/base.py`) can
 * go wrong. Each is a subclass that overrides one protected step; none of this code is reachable
 * from the shipped package. The catalogue (`catalogue.ts`) names them and says how the model must
 * catch each.
 */
import { FreeGroupError, PagedAllocator, type DecodeBatch, type ExtendBatch, type FreeSegment } from '@kvfuzz/allocator-core';
import { buggyCountDecodePages, buggyCountExtendPages, buggyPlanExtendInto, type ExtendBug } from './buggy-planners.js';

/** Paged `free()` without `unique`: one page is released once per slot given. */
export class FreeWithoutUnique extends PagedAllocator {
  override free(indices: ArrayLike<number>): void {
    if (indices.length === 0) return;
    const pages = Int32Array.from(Array.from(indices, (slot) => Math.floor(slot / this.pageSize)));
    if (this.groupOpen) this.queueReps(pages, 0, pages.length);
    else this.release(pages, 0, pages.length);
  }
}

/** `free_segment` without its start assert: the stride trick on an unaligned start frees the wrong pages. */
export class SegmentUnalignedStart extends PagedAllocator {
  protected override validateSegments(segments: readonly FreeSegment[]): number {
    const ps = this.pageSize;
    let prevEnd = -1;
    let pages = 0;
    for (const segment of segments) {
      if (segment.indices.length === 0) continue;
      if (prevEnd >= 0 && Math.floor(segment.startPos / ps) <= Math.floor((prevEnd - 1) / ps)) {
        super.validateSegments(segments);
      }
      prevEnd = segment.startPos + segment.indices.length;
      pages += Math.ceil(segment.indices.length / ps);
    }
    return pages;
  }

  protected override blockKeepsPage(): boolean {
    // The row-structure check would notice the misaligned stride; the planted bug has none.
    return true;
  }
}

/** Freed pages appended instead of prepended: same sets, different reuse order (exact mode). */
export class AppendInsteadOfPrepend extends PagedAllocator {
  protected override releasePages(pages: Int32Array, start: number, n: number): void {
    if (this.needSort) {
      this.stage(pages, start, n);
      return;
    }
    this.freeList.append(pages, start, n);
    // The pages take the serials of their places, as a prepend numbers them: only the order differs.
    if (this.checks) {
      this.numberFreeList();
      this.renumberNearLimit();
    }
  }
}

/** `clear()` starts the free list at page 0, so the padding page is handed out. */
export class ClearFromPageZero extends PagedAllocator {
  protected override resetFreeList(): void {
    this.freeList.fillAscending(0, this.numPages - 1);
  }
}

/** A broken extend layout: the page cursor, the tail page or part 1 (see `ExtendBug`). */
export class BuggyExtendLayout extends PagedAllocator {
  constructor(
    config: ConstructorParameters<typeof PagedAllocator>[0],
    readonly bug: ExtendBug,
  ) {
    super(config);
  }

  protected override planExtend(batch: ExtendBatch, out: Int32Array): void {
    // Only the layout is corrupted: the reference's lastLoc check (in validateExtend) stays.
    buggyPlanExtendInto(this.bug, batch, this.pageSize, this.freeList.buf, this.freeList.head, out);
  }
}

/** Decode advances the free list by a wrong page count. */
export class DecodeCountOffByOne extends PagedAllocator {
  protected override countDecodePages(batch: DecodeBatch): number {
    return buggyCountDecodePages(batch, this.pageSize);
  }
}

/** Extend counts new pages with floor instead of ceil. */
export class ExtendCountFloor extends PagedAllocator {
  protected override countExtendPages(batch: ExtendBatch): number {
    return buggyCountExtendPages(batch, this.pageSize);
  }
}

/** The capacity check moved after slicing: a short extend consumes the free list, then returns null. */
export class CapacityAfterSlicing extends PagedAllocator {
  override allocExtend(batch: ExtendBatch): Int32Array | null {
    const pageCount = this.countExtendPages(batch);
    if (batch.prefixLens.length > 0 && pageCount > this.freeList.count && pageCount <= this.freeList.count + this.stagedCount + 1) {
      this.handOut(this.freeList.count);
      return null;
    }
    return super.allocExtend(batch);
  }
}

/** No merge of staged pages when an allocation runs short: spurious null under needSort. */
export class NoMergeWhenShort extends PagedAllocator {
  protected override mergeBeforeAlloc(): void {}
  protected override mergeBeforeExtend(): void {}
  protected override mergeBeforeDecode(): void {}
}

/** The group's segment representatives are never cleared, so the next group releases them again. */
export class GroupKeepsReps extends PagedAllocator {
  override freeGroupBegin(): void {
    if (this.groupOpen) throw new FreeGroupError('free groups cannot be nested');
    this.groupOpen = true;
    this.groupPlainCount = 0;
    this.groupStamp++;
  }

  override freeGroupEnd(): void {
    if (!this.groupOpen) throw new FreeGroupError('freeGroupEnd without a matching freeGroupBegin');
    this.groupOpen = false;
    const plainCount = this.groupPlainCount;
    this.groupPlainCount = 0;
    if (plainCount > 0) this.releasePlain(this.groupPlain, plainCount);
    if (this.groupRepsCount > 0) this.release(this.groupReps, 0, this.groupRepsCount);
  }
}

/** A free group keeps the caller's arrays instead of copies, and reads them at the group's end. */
export class GroupKeepsViews extends PagedAllocator {
  private views: ArrayLike<number>[] = [];

  override free(indices: ArrayLike<number>): void {
    if (this.groupOpen) this.views.push(indices);
    else super.free(indices);
  }

  override freeGroupEnd(): void {
    const views = this.views;
    this.views = [];
    super.freeGroupEnd();
    for (const view of views) super.free(view);
  }
}

/** A nested `freeGroupBegin` silently resets the group, dropping what was queued (a leak). */
export class NestedBeginResets extends PagedAllocator {
  override freeGroupBegin(): void {
    if (this.groupOpen) {
      this.groupPlainCount = 0;
      this.groupRepsCount = 0;
      return;
    }
    super.freeGroupBegin();
  }
}

/** Accounting: `availableSize` counts pages queued in an open free group as already free. */
export class AvailableCountsQueued extends PagedAllocator {
  override availableSize(): number {
    return super.availableSize() + (this.groupOpen ? this.groupPlainCount + this.groupRepsCount : 0) * this.pageSize;
  }
}

/** `backupState` keeps live references to structures that are later mutated in place. */
export class BackupLiveReference extends PagedAllocator {
  override backupState(): unknown {
    if (this.groupOpen) throw new FreeGroupError('backupState inside an open free group');
    return { buf: this.freeList.buf, head: this.freeList.head, count: this.freeList.count, stagedCount: this.stagedCount };
  }

  override restoreState(state: unknown): void {
    const s = state as { buf: Int32Array; head: number; count: number; stagedCount: number };
    this.freeList.head = s.head;
    this.freeList.count = s.count;
    this.stagedCount = s.stagedCount;
  }
}

/** A24: with checks on, `free` drops a slot past the pool (`≥ (numPages + 1) × pageSize`) instead of refusing the call. */
export class FreeIgnoresOutsidePool extends PagedAllocator {
  override free(indices: ArrayLike<number>): void {
    if (this.checks !== true) {
      super.free(indices);
      return;
    }
    const inside = Array.from(indices).filter((slot) => !(slot >= this.slotEnd));
    if (inside.length > 0) super.free(inside);
  }
}
