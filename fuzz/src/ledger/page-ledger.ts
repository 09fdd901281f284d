import { LedgerViolation } from './ledger-violation.js';
import type { OpLabel } from './op-label.js';

/** `holder[p]` values that are not holders. */
export const kLedgerFree = -1;
/** Given back inside an open free group: not held, not yet available. */
export const kLedgerQueued = -2;
/** Page 0: never handed out, never given back. */
export const kLedgerReserved = -3;

/** Largest call stamp before the stamps start over (int32, as `seenStamp` holds them). */
const kStampMax = 2 ** 31 - 2;

function bump(counts: Int32Array, page: number): void {
  counts[page] = (counts[page] as number) + 1;
}

/** A copy of the ledger's state, for backup/restore. */
export interface LedgerSnapshot {
  readonly holder: Int32Array;
  readonly heldSince: Int32Array;
  readonly freePageCount: number;
  readonly queuedPageCount: number;
}

/**
 * Who holds each page, kept outside every implementation from the traffic alone: what each call
 * returned and what each caller gave back. It trusts nothing the allocator says about itself.
 * Each call costs O(pages it names); only `reset`, `snapshot`, `restore` and `checkDrained` walk
 * the whole pool.
 *
 * Invariants: (1) free + queued + held = numPages (page 0 is reserved); (2) a page has at most one
 * holder; (3) over a whole run, every page is given back exactly once per time it was handed out;
 * (4) `queued[0, queuedPages)` lists exactly the pages whose holder is `kLedgerQueued`.
 */
export class PageLedger {
  // holder[p]: the id of the holder of page p, or kLedgerFree / kLedgerQueued / kLedgerReserved.
  private holder: Int32Array;
  // heldSince[p]: the epoch (allocation number) of page p's current holding, for messages.
  private heldSince: Int32Array;
  // handedOut[p] / givenBack[p]: over the whole run (restore and clear void holdings, see below).
  private readonly handedOut: Int32Array;
  private readonly givenBack: Int32Array;
  // queued[0, queuedPages): the pages given back inside the open free group, in give-back order.
  private readonly queued: Int32Array;
  // seenStamp[p] === stamp: page p was already named by the call being recorded (a duplicate).
  private readonly seenStamp: Int32Array;
  // Pages given back since the last `takeReleased()`; null until a model asks for the journal.
  private released: number[] | null = null;
  private stamp = 0;
  private epoch = 0;
  private freePages = 0;
  private queuedPages = 0;

  constructor(
    readonly pageSize: number,
    readonly numPages: number,
  ) {
    // The six per-page lanes share one buffer: every run builds a ledger, and Node makes one
    // typed array much faster than six.
    const n = numPages + 1;
    const lanes = new Int32Array(6 * n);
    const lane = (i: number): Int32Array => lanes.subarray(i * n, (i + 1) * n);
    this.holder = lane(0);
    this.heldSince = lane(1);
    this.handedOut = lane(2);
    this.givenBack = lane(3);
    this.queued = lane(4);
    this.seenStamp = lane(5);
    this.holder.fill(kLedgerFree);
    this.reset();
  }

  /** Pages the allocator must report as available (free and staged alike). */
  get freePageCount(): number {
    return this.freePages;
  }

  get queuedPageCount(): number {
    return this.queuedPages;
  }

  get heldPageCount(): number {
    return this.numPages - this.freePages - this.queuedPages;
  }

  /** The allocation epoch of page's current holding (0 for a page never handed out). */
  epochOf(page: number): number {
    return this.heldSince[page] ?? 0;
  }

  holderOf(page: number): number {
    return this.holder[page] ?? kLedgerReserved;
  }

  /** Starts the journal of given-back pages that `takeReleased` hands over (off by default: it costs a push per page). */
  journalReleases(): void {
    this.released = [];
  }

  /** The pages given back since the last call (a page given back twice appears twice), in order. */
  takeReleased(): readonly number[] {
    const out = this.released ?? [];
    if (this.released !== null) this.released = [];
    return out;
  }

  /** Every page free: the state after `clear()`. Holdings in flight are voided, not given back. */
  reset(): void {
    for (let page = 1; page <= this.numPages; page++) {
      // A queued page was counted as given back when it was queued.
      if ((this.holder[page] as number) >= 0) bump(this.givenBack, page);
    }
    this.holder.fill(kLedgerFree);
    this.holder[0] = kLedgerReserved;
    this.freePages = this.numPages;
    this.queuedPages = 0;
  }

  /**
   * Records pages handed out to `holderId`.
   *
   * @throws LedgerViolation when a page is outside `[1, numPages]`, not free, or handed out twice in one call.
   */
  acquire(holderId: number, pages: ArrayLike<number>, op: OpLabel): void {
    const stamp = this.nextStamp();
    for (let i = 0; i < pages.length; i++) {
      const page = pages[i] as number;
      if (!Number.isInteger(page) || page < 1 || page > this.numPages) {
        throw new LedgerViolation('page-range', `${op} handed out page ${page}, outside [1, ${this.numPages}]`);
      }
      if (this.seenStamp[page] === stamp) throw new LedgerViolation('unique-output', `${op} handed out page ${page} twice in one call`);
      this.seenStamp[page] = stamp;
      const h = this.holder[page] as number;
      if (h !== kLedgerFree) {
        throw new LedgerViolation(
          'double-alloc',
          `${op} handed out page ${page}, which ${h === kLedgerQueued ? 'is queued in an open free group' : `is held by #${h} since allocation ${this.heldSince[page]}`}`,
        );
      }
    }
    this.epoch++;
    for (let i = 0; i < pages.length; i++) {
      const page = pages[i] as number;
      this.holder[page] = holderId;
      this.heldSince[page] = this.epoch;
      bump(this.handedOut, page);
    }
    this.freePages -= pages.length;
  }

  /**
   * Records pages a caller gave back: free at once, or queued when `inGroup`.
   *
   * @param holderId - who gives them back; `undefined` accepts any holder (a cache giving back a shared page).
   * @throws LedgerViolation when a page is not held (by `holderId`), or appears twice.
   */
  release(holderId: number | undefined, pages: ArrayLike<number>, inGroup: boolean, op: OpLabel): void {
    const stamp = this.nextStamp();
    for (let i = 0; i < pages.length; i++) {
      const page = pages[i] as number;
      const h = Number.isInteger(page) ? this.holderOf(page) : kLedgerReserved;
      // A page named earlier in this call is still held here (nothing changes before the loop ends).
      const twice = h >= 0 && this.seenStamp[page] === stamp;
      if (twice || h < 0) {
        const state = twice ? 'given back twice in this call' : h === kLedgerQueued ? 'already given back in this free group' : h === kLedgerFree ? 'free' : 'reserved or outside the pool';
        throw new LedgerViolation('double-free', `${op} gives back page ${page}, which is ${state}`);
      }
      if (holderId !== undefined && h !== holderId) {
        throw new LedgerViolation('foreign-free', `${op} by #${holderId} gives back page ${page}, held by #${h}`);
      }
      this.seenStamp[page] = stamp;
    }
    for (let i = 0; i < pages.length; i++) {
      const page = pages[i] as number;
      bump(this.givenBack, page);
      this.released?.push(page);
      if (inGroup) {
        this.holder[page] = kLedgerQueued;
        this.queued[this.queuedPages++] = page;
      } else {
        this.holder[page] = kLedgerFree;
      }
    }
    if (!inGroup) this.freePages += pages.length;
  }

  /** The open free group ended: its queued pages become free. */
  flushQueued(): void {
    for (let i = 0; i < this.queuedPages; i++) this.holder[this.queued[i] as number] = kLedgerFree;
    this.freePages += this.queuedPages;
    this.queuedPages = 0;
  }

  /** A fresh stamp for one call's duplicate check; the stamps start over long before they overflow. */
  private nextStamp(): number {
    if (this.stamp === kStampMax) {
      this.seenStamp.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }

  snapshot(): LedgerSnapshot {
    return { holder: this.holder.slice(), heldSince: this.heldSince.slice(), freePageCount: this.freePages, queuedPageCount: this.queuedPages };
  }

  /**
   * Back to a snapshot (the allocator's `restoreState`): holdings made since are voided and frees
   * since are undone, in the per-page counts too, so exactly-once still holds over the run.
   */
  restore(snapshot: LedgerSnapshot): void {
    for (let page = 1; page <= this.numPages; page++) {
      const now = this.holder[page] as number;
      const then = snapshot.holder[page] as number;
      if (now === then && this.heldSince[page] === snapshot.heldSince[page]) continue;
      // Undo: a holding that exists now but not then is voided (counts as given back); a holding
      // that existed then but was given back since is re-established (one more handed out).
      // Snapshots are taken and restored outside free groups, so neither side is queued.
      if (now >= 0) bump(this.givenBack, page);
      if (then >= 0) bump(this.handedOut, page);
    }
    this.holder = snapshot.holder.slice();
    this.heldSince = snapshot.heldSince.slice();
    this.freePages = snapshot.freePageCount;
    this.queuedPages = 0;
    for (let page = 1; page <= this.numPages; page++) if (this.holder[page] === kLedgerQueued) this.queued[this.queuedPages++] = page;
  }

  /**
   * After a drain: every page free and given back exactly once per time it was handed out.
   *
   * @throws LedgerViolation naming the pages that are still held or were given back a different number of times.
   */
  checkDrained(): void {
    const held: number[] = [];
    const unbalanced: string[] = [];
    for (let page = 1; page <= this.numPages; page++) {
      if (this.holder[page] !== kLedgerFree) held.push(page);
      if (this.handedOut[page] !== this.givenBack[page]) unbalanced.push(`${page} (out ${this.handedOut[page]}, back ${this.givenBack[page]})`);
    }
    if (held.length > 0) throw new LedgerViolation('leak', `after the drain pages are still held: [${held.join(', ')}]`);
    if (unbalanced.length > 0) throw new LedgerViolation('exactly-once', `pages not given back exactly once per allocation: ${unbalanced.join(', ')}`);
  }
}
