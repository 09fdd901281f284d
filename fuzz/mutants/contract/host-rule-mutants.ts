/**
 * Planted bugs for the host pool rules the engine-derived host mutants do not break by themselves:
 * each wraps the reference pool and breaks one rule of CONTRACT.md, so the validator must report it.
 */
import { ArgumentError } from '@kvfuzz/allocator-core';
import type { HostPool } from '@kvfuzz/host-pool';

/** A host pool that passes every call to another one; each bug overrides the call it breaks. */
export class ForwardingHostPool implements HostPool {
  constructor(protected readonly inner: HostPool) {}
  get size(): number {
    return this.inner.size;
  }
  get pageSize(): number {
    return this.inner.pageSize;
  }
  availableSize(): number {
    return this.inner.availableSize();
  }
  alloc(n: number): Int32Array | null {
    return this.inner.alloc(n);
  }
  free(indices: ArrayLike<number>): number {
    return this.inner.free(indices);
  }
  clear(): void {
    this.inner.clear();
  }
}

/** H3: hands out a plain array. */
export class HostPlainArray extends ForwardingHostPool {
  override alloc(n: number): Int32Array | null {
    const out = this.inner.alloc(n);
    return (out === null ? null : Array.from(out)) as unknown as Int32Array | null;
  }
}

/** H4: an allocation of two slots or more names its first slot twice. */
export class HostSlotTwice extends ForwardingHostPool {
  override alloc(n: number): Int32Array | null {
    const out = this.inner.alloc(n);
    if (out === null || out.length < 2) return out;
    const copy = out.slice();
    copy[1] = copy[0] as number;
    return copy;
  }
}

/** H5: returns null for a request of exactly the free slots. */
export class HostNullWhenExact extends ForwardingHostPool {
  override alloc(n: number): Int32Array | null {
    return n > 0 && n === this.inner.availableSize() ? null : this.inner.alloc(n);
  }
}

/** H6: availableSize leaves out one slot. */
export class HostAvailableOffByOne extends ForwardingHostPool {
  override availableSize(): number {
    return Math.max(0, this.inner.availableSize() - 1);
  }
}

/** H7: free returns one less than it freed. */
export class HostFreeCountShort extends ForwardingHostPool {
  override free(indices: ArrayLike<number>): number {
    const count = this.inner.free(indices);
    return count > 0 ? count - 1 : count;
  }
}

/** H8: clear() keeps every slot held. */
export class HostClearIgnored extends ForwardingHostPool {
  override clear(): void {}
}

/** H10: refuses alloc(0), which the contract allows. */
export class HostRefusesEmptyAlloc extends ForwardingHostPool {
  override alloc(n: number): Int32Array | null {
    if (n === 0) throw new ArgumentError('alloc(0) is refused');
    return this.inner.alloc(n);
  }
}
