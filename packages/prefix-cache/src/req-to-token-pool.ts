import { ArgumentError } from '@kvfuzz/allocator-core';
import { RequestStateError } from './errors.js';

/**
 * The engine's `req_to_token` table: one row per live request, `row[i]` the KV slot of token
 * position `i`. Rows are handed out from a free list and reused, so a row that is given back can be
 * overwritten by the next request at once — which is why allocators must copy what they defer.
 *
 * Invariants: (1) free rows + live rows = rowCount; (2) a row is live at most once.
 */
export class ReqToTokenPool {
  readonly rowCount: number;
  /** Longest row in token positions. */
  readonly rowLength: number;
  // table[row * rowLength + pos]: the slot of position pos of row; -1 where nothing was written.
  private readonly table: Int32Array;
  // freeRows[0, freeCount): rows that can be handed out, lowest first.
  private readonly freeRows: Int32Array;
  private freeCount = 0;
  // live[row]: 1 while the row belongs to a request.
  private readonly live: Uint8Array;

  /**
   * @param rowCount - rows (concurrent requests), a positive integer.
   * @param rowLength - token positions per row, a positive integer.
   * @throws ArgumentError naming a bad size.
   */
  constructor(rowCount: number, rowLength: number) {
    for (const [name, v] of [['rowCount', rowCount], ['rowLength', rowLength]] as const) {
      if (!Number.isInteger(v) || v <= 0) throw new ArgumentError(`ReqToTokenPool ${name} ${String(v)} is not a positive integer`);
    }
    this.rowCount = rowCount;
    this.rowLength = rowLength;
    this.table = new Int32Array(rowCount * rowLength);
    this.freeRows = new Int32Array(rowCount);
    this.live = new Uint8Array(rowCount);
    this.clear();
  }

  /** Rows that can still be handed out. */
  availableRows(): number {
    return this.freeCount;
  }

  /** A free row (its contents reset to −1), or null when every row is live. */
  alloc(): number | null {
    if (this.freeCount === 0) return null;
    const row = this.freeRows[--this.freeCount] as number;
    this.live[row] = 1;
    this.table.fill(-1, row * this.rowLength, (row + 1) * this.rowLength);
    return row;
  }

  /**
   * Gives a row back.
   *
   * @throws RequestStateError when the row is not live.
   */
  free(row: number): void {
    this.checkLive(row);
    this.live[row] = 0;
    this.freeRows[this.freeCount++] = row;
  }

  /** A live view of `row` (writes go to the table). */
  row(row: number): Int32Array {
    this.checkLive(row);
    return this.table.subarray(row * this.rowLength, (row + 1) * this.rowLength);
  }

  /**
   * Writes `slots` at positions `[start, start + slots.length)` of `row`.
   *
   * @throws RequestStateError when the row is not live or the write runs past the row.
   */
  write(row: number, start: number, slots: ArrayLike<number>): void {
    this.checkLive(row);
    if (!Number.isInteger(start) || start < 0 || start + slots.length > this.rowLength) {
      throw new RequestStateError(`row ${row}: writing positions [${start}, ${start + slots.length}) runs outside [0, ${this.rowLength})`);
    }
    this.table.set(slots, row * this.rowLength + start);
  }

  /** Every row free. */
  clear(): void {
    this.live.fill(0);
    this.freeCount = 0;
    for (let row = this.rowCount - 1; row >= 0; row--) this.freeRows[this.freeCount++] = row;
  }

  private checkLive(row: number): void {
    if (!Number.isInteger(row) || row < 0 || row >= this.rowCount || this.live[row] !== 1) {
      throw new RequestStateError(`row ${String(row)} is not a live row of the req-to-token pool (rows 0..${this.rowCount - 1})`);
    }
  }
}
