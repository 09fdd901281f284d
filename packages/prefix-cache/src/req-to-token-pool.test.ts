import { ArgumentError } from '@kvfuzz/allocator-core';
import { describe, expect, it } from 'vitest';
import { RequestStateError } from './errors.js';
import { ReqToTokenPool } from './req-to-token-pool.js';

/** A copy of every live row; null for a row that is not live. */
function liveRows(pool: ReqToTokenPool): (number[] | null)[] {
  return Array.from({ length: pool.rowCount }, (_, row) => {
    try {
      return Array.from(pool.row(row));
    } catch {
      return null;
    }
  });
}

describe('prefix-cache:req-to-token-pool,alloc', () => {
  it('hands out rows lowest first until every row is live, then returns null', () => {
    const pool = new ReqToTokenPool(3, 8);
    expect(pool.availableRows()).toBe(3);
    expect([pool.alloc(), pool.alloc(), pool.alloc()]).toEqual([0, 1, 2]);
    expect(pool.availableRows()).toBe(0);
    expect(pool.alloc()).toBeNull();
    expect(pool.availableRows()).toBe(0);
  });

  it('a given-back row is handed out again, its contents reset to −1', () => {
    const pool = new ReqToTokenPool(2, 4);
    const a = pool.alloc() as number;
    const b = pool.alloc() as number;
    pool.write(a, 0, [8, 9, 10, 11]);
    pool.write(b, 0, [16, 17]);
    pool.free(a);
    expect(pool.availableRows()).toBe(1);
    expect(pool.alloc()).toBe(a);
    expect(Array.from(pool.row(a))).toEqual([-1, -1, -1, -1]);
    expect(Array.from(pool.row(b))).toEqual([16, 17, -1, -1]);
  });

  it('clear() makes every row free again', () => {
    const pool = new ReqToTokenPool(2, 4);
    pool.alloc();
    pool.alloc();
    pool.clear();
    expect(pool.availableRows()).toBe(2);
    expect(() => pool.row(0)).toThrow(RequestStateError);
    expect([pool.alloc(), pool.alloc(), pool.alloc()]).toEqual([0, 1, null]);
  });
});

describe('prefix-cache:req-to-token-pool,write', () => {
  it('writes at [start, start + n), and row() is a live view of the table', () => {
    const pool = new ReqToTokenPool(1, 8);
    const row = pool.alloc() as number;
    const view = pool.row(row);
    pool.write(row, 2, [40, 41, 42]);
    expect(Array.from(view)).toEqual([-1, -1, 40, 41, 42, -1, -1, -1]);
    view[0] = 7;
    expect(pool.row(row)[0]).toBe(7);
  });

  it.each([
    // start, slots: the accepted side of each boundary
    [6, [1, 2]],
    [0, [1, 2, 3, 4, 5, 6, 7, 8]],
    [8, []],
  ])('a write at %i of %j ends inside the row: accepted', (start, slots) => {
    const pool = new ReqToTokenPool(1, 8);
    const row = pool.alloc() as number;
    pool.write(row, start, slots);
    expect(Array.from(pool.row(row).subarray(start, start + slots.length))).toEqual(slots);
  });

  it.each([
    // start, slots: the refused side of each boundary
    [7, [1, 2], '[7, 9)'],
    [0, [1, 2, 3, 4, 5, 6, 7, 8, 9], '[0, 9)'],
    [9, [], '[9, 9)'],
    [-1, [1], '[-1, 0)'],
    [1.5, [1], '[1.5, 2.5)'],
  ])('a write at %s of %j runs outside the row: RequestStateError naming %s, the row unchanged', (start, slots, named) => {
    const pool = new ReqToTokenPool(1, 8);
    const row = pool.alloc() as number;
    pool.write(row, 0, [1, 2, 3, 4, 5, 6, 7, 8]);
    expect(() => pool.write(row, start, slots)).toThrow(RequestStateError);
    expect(() => pool.write(row, start, slots)).toThrow(`writing positions ${named} runs outside [0, 8)`);
    expect(Array.from(pool.row(row))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('prefix-cache:req-to-token-pool,live', () => {
  it('a freed row is not accessible: row, write and a second free throw RequestStateError and change nothing', () => {
    const pool = new ReqToTokenPool(2, 4);
    const a = pool.alloc() as number;
    const b = pool.alloc() as number;
    pool.write(b, 0, [4, 5]);
    pool.free(a);
    const before = liveRows(pool);
    expect(() => pool.row(a)).toThrow(RequestStateError);
    expect(() => pool.row(a)).toThrow(`row ${a} is not a live row of the req-to-token pool (rows 0..1)`);
    expect(() => pool.write(a, 0, [1])).toThrow(RequestStateError);
    expect(() => pool.free(a)).toThrow(RequestStateError);
    expect(liveRows(pool)).toEqual(before);
    expect(pool.availableRows()).toBe(1);
  });

  it.each([[-1], [2], [0.5], [Number.NaN]])('row %s is not a row of a 2-row pool: RequestStateError', (row) => {
    const pool = new ReqToTokenPool(2, 4);
    pool.alloc();
    pool.alloc();
    expect(() => pool.row(row)).toThrow(RequestStateError);
    expect(() => pool.free(row)).toThrow(`row ${String(row)} is not a live row`);
    expect(pool.availableRows()).toBe(0);
  });

  it('a row never handed out is not live', () => {
    const pool = new ReqToTokenPool(2, 4);
    pool.alloc();
    expect(() => pool.row(1)).toThrow(RequestStateError);
  });
});

describe('prefix-cache:req-to-token-pool,construct', () => {
  it('1 × 1 is the smallest pool', () => {
    const pool = new ReqToTokenPool(1, 1);
    expect([pool.rowCount, pool.rowLength, pool.availableRows()]).toEqual([1, 1, 1]);
  });

  it.each([
    ['rowCount', 0, 4],
    ['rowCount', -1, 4],
    ['rowCount', 1.5, 4],
    ['rowCount', Number.NaN, 4],
    ['rowLength', 2, 0],
    ['rowLength', 2, -8],
    ['rowLength', 2, 2.5],
    ['rowLength', 2, Number.POSITIVE_INFINITY],
  ] as const)('a bad %s (rowCount %s, rowLength %s) throws ArgumentError naming it', (name, rowCount, rowLength) => {
    const value = name === 'rowCount' ? rowCount : rowLength;
    expect(() => new ReqToTokenPool(rowCount, rowLength)).toThrow(ArgumentError);
    expect(() => new ReqToTokenPool(rowCount, rowLength)).toThrow(`ReqToTokenPool ${name} ${String(value)} is not a positive integer`);
  });
});
