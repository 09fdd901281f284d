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
  // rows[row][pos]: the slot of position pos of row; -1 where nothing was written. A row's array
  // is made when the row is first handed out, so a pool costs only the rows its requests use.
  private readonly rows: (Int32Array | undefined)[];
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
    this.rows = new Array<Int32Array | undefined>(rowCount).fill(undefined);
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
    const slots = this.rows[row];
    if (slots === undefined) this.rows[row] = new Int32Array(this.rowLength).fill(-1);
    else slots.fill(-1);
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

  /** The live row itself, `rowLength` positions (writes go to the pool). */
  row(row: number): Int32Array {
    this.checkLive(row);
    return this.rows[row] as Int32Array;
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
    (this.rows[row] as Int32Array).set(slots, start);
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
