import { LedgerViolation } from './ledger-violation.js';
import type { PageLedger } from './page-ledger.js';

/** What the recorder needs of a host pool (the reference `HostSlotPool` or an alternative). */
export interface HostPoolLike {
  readonly size: number;
  availableSize(): number;
  alloc(n: number): Int32Array | null;
  free(indices: ArrayLike<number>): number;
  clear(): void;
}

/**
 * Stands between the HiCache controller and its host pool and writes every host slot that crosses
 * into a ledger (host slot `s` is ledger page `s + 1`, since host slots start at 0 and the ledger
 * reserves page 0). With a shadow reference pool, every allocation must also be the reference's
 * slots (the contiguous-run preference is part of the host pool's behaviour).
 */
export class RecordingHostPool implements HostPoolLike {
  constructor(
    readonly inner: HostPoolLike,
    readonly ledger: PageLedger,
    readonly shadow: HostPoolLike | null,
  ) {}

  get size(): number {
    return this.inner.size;
  }

  availableSize(): number {
    return this.inner.availableSize();
  }

  alloc(n: number): Int32Array | null {
    const out = this.inner.alloc(n);
    if (this.shadow !== null) {
      const expect = this.shadow.alloc(n);
      const same = out === null ? expect === null : expect !== null && out.length === expect.length && out.every((s, i) => s === expect[i]);
      if (!same) throw new LedgerViolation('exact-host', `host alloc(${n}) returned ${show(out)}, the reference ${show(expect)}`);
    }
    if (out !== null) this.ledger.acquire(0, Array.from(out, (s) => s + 1), `host alloc(${n})`);
    return out;
  }

  free(indices: ArrayLike<number>): number {
    const slots = Array.from(indices);
    const count = this.inner.free(indices);
    this.shadow?.free(slots);
    if (slots.length > 0) this.ledger.release(undefined, slots.map((s) => s + 1), false, 'host free');
    return count;
  }

  clear(): void {
    this.inner.clear();
    this.shadow?.clear();
    this.ledger.reset();
  }
}

function show(x: Int32Array | null): string {
  return x === null ? 'null' : `[${Array.from(x.subarray(0, 16)).join(', ')}${x.length > 16 ? ', …' : ''}]`;
}
