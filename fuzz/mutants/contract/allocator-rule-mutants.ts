/**
 * Planted bugs for the allocator rules the engine-derived mutants of `../allocator/` do not break
 * by themselves: each wraps the reference and breaks one rule of CONTRACT.md, so the validator
 * must report that rule. Small on purpose: each shows one rule is checked.
 */
import { ArgumentError, type DecodeBatch, type ExtendBatch } from '@kvfuzz/allocator-core';
import { ForwardingAllocator } from '../../src/models/allocator/forwarding-allocator.js';

/** A1: reports a pageSize one larger than kernelPageSize × dcpSize. */
export class WrongPageSize extends ForwardingAllocator {
  override get pageSize(): number {
    return this.inner.pageSize + 1;
  }
}

/** A5: hands out a plain array instead of an Int32Array. */
export class PlainArrayAlloc extends ForwardingAllocator {
  override alloc(needSize: number): Int32Array | null {
    const out = this.inner.alloc(needSize);
    return (out === null ? null : Array.from(out)) as unknown as Int32Array | null;
  }
}

/** A7: an alloc of two pages or more returns the second page's slots first. */
export class AllocPagesSwapped extends ForwardingAllocator {
  override alloc(needSize: number): Int32Array | null {
    const out = this.inner.alloc(needSize);
    const ps = this.pageSize;
    if (out === null || out.length < 2 * ps || ps < 2) return out;
    const swapped = out.slice();
    // Within the first page, slots in reverse order: still the same pages, no longer "each page as its slots in order".
    swapped.subarray(0, ps).reverse();
    return swapped;
  }
}

/** A9: a decode that continues a page returns the slot after lastLoc + 1 in the same page, when there is one. */
export class DecodeSkipsASlot extends ForwardingAllocator {
  override allocDecode(batch: DecodeBatch): Int32Array | null {
    const out = this.inner.allocDecode(batch);
    if (out === null || out.length === 0) return out;
    const ps = this.pageSize;
    const first = out[0] as number;
    return first % ps !== 0 && first % ps !== ps - 1 ? Int32Array.from(out, (s, i) => (i === 0 ? s + 1 : s)) : out;
  }
}

/** A12: a plain free outside a group gives back nothing (the pages stay held). */
export class FreeDropsPages extends ForwardingAllocator {
  private group = false;
  override freeGroupBegin(): void {
    this.inner.freeGroupBegin();
    this.group = true;
  }
  override freeGroupEnd(): void {
    this.inner.freeGroupEnd();
    this.group = false;
  }
  override free(indices: ArrayLike<number>): void {
    if (this.group || indices.length === 0) this.inner.free(indices);
  }
  override clear(): void {
    this.inner.clear();
    this.group = false;
  }
}

/** A14: restoreState does nothing. */
export class RestoreIgnored extends ForwardingAllocator {
  override restoreState(): void {}
}

/** A15: clear() keeps every page held. */
export class ClearIgnored extends ForwardingAllocator {
  override clear(): void {}
}

/** A18: refuses alloc(0), which the contract allows. */
export class RefusesEmptyAlloc extends ForwardingAllocator {
  override alloc(needSize: number): Int32Array | null {
    if (needSize === 0) throw new ArgumentError('alloc size 0 is refused');
    return this.inner.alloc(needSize);
  }
}

/** A20: a negative alloc hands out nothing instead of being refused. */
export class AcceptsNegativeAlloc extends ForwardingAllocator {
  override alloc(needSize: number): Int32Array | null {
    return needSize < 0 ? new Int32Array(0) : this.inner.alloc(needSize);
  }
}

/** A21: an extend whose arrays differ in length uses the shortest. */
export class ExtendTruncatesBatch extends ForwardingAllocator {
  override allocExtend(batch: ExtendBatch): Int32Array | null {
    const n = Math.min(batch.prefixLens.length, batch.seqLens.length, batch.lastLoc.length);
    const cut = (a: ArrayLike<number>): number[] => Array.from(a).slice(0, n);
    return this.inner.allocExtend({ prefixLens: cut(batch.prefixLens), seqLens: cut(batch.seqLens), lastLoc: cut(batch.lastLoc) });
  }
}

/** A25: a lastLoc that does not fit its prefix is not refused: the extend answers null, as if the pool were short. */
export class LastLocUnchecked extends ForwardingAllocator {
  override allocExtend(batch: ExtendBatch): Int32Array | null {
    const ps = this.pageSize;
    const fits = Array.from(batch.prefixLens).every((pre, i) => {
      const last = batch.lastLoc[i] as number;
      return pre === 0 ? last === -1 : (last + 1) % ps === pre % ps;
    });
    return fits ? this.inner.allocExtend(batch) : null;
  }
}
