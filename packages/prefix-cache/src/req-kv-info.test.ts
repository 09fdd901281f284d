import { describe, expect, it } from 'vitest';
import { RequestStateError } from './errors.js';
import { checkReqKvInfo, newReqKvInfo, type ReqKvInfo } from './req-kv-info.js';

// Page 8, row length 32. The control record sits inside every rule; each case below breaks one rule
// alone, next to the case on the accepted side of the same boundary (STYLE rule 18).
const kPage = 8;
const kRowLength = 32;
const control: ReqKvInfo = { reqPoolIdx: 3, cacheProtectedLen: 8, kvCommittedLen: 13, kvAllocatedLen: 20, swaEvictedSeqlen: 8 };

describe('prefix-cache:req-kv-info,new', () => {
  it('a fresh record holds the matched prefix as protected, committed and allocated, with no SWA floor', () => {
    expect(newReqKvInfo(3, 16)).toEqual({ reqPoolIdx: 3, cacheProtectedLen: 16, kvCommittedLen: 16, kvAllocatedLen: 16, swaEvictedSeqlen: 0 });
    expect(() => checkReqKvInfo(newReqKvInfo(0, 0), kPage, kRowLength)).not.toThrow();
  });
});

describe('prefix-cache:req-kv-info,check', () => {
  it('the control record passes', () => {
    expect(() => checkReqKvInfo(control, kPage, kRowLength)).not.toThrow();
  });

  it.each([
    // rule, accepted side, refused side, a value the message names
    ['cacheProtectedLen ≤ kvCommittedLen', { cacheProtectedLen: 16, kvCommittedLen: 16 }, { cacheProtectedLen: 16, kvCommittedLen: 15 }, 'cacheProtectedLen 16 ≤ kvCommittedLen 15'],
    ['0 ≤ cacheProtectedLen', { cacheProtectedLen: 0 }, { cacheProtectedLen: -8 }, 'cacheProtectedLen -8'],
    ['kvCommittedLen ≤ kvAllocatedLen', { kvCommittedLen: 20 }, { kvCommittedLen: 21 }, 'kvCommittedLen 21 ≤ kvAllocatedLen 20'],
    ['kvAllocatedLen ≤ row length', { kvAllocatedLen: 32 }, { kvAllocatedLen: 33 }, 'kvAllocatedLen 33 ≤ row length 32'],
    ['cacheProtectedLen on the page (8 vs 4)', { cacheProtectedLen: 8 }, { cacheProtectedLen: 4 }, 'cache_protected_len must be page aligned: 4 % 8 = 4'],
    ['cacheProtectedLen on the page (8 vs 12)', { cacheProtectedLen: 8 }, { cacheProtectedLen: 12, kvCommittedLen: 13 }, 'cache_protected_len must be page aligned: 12 % 8 = 4'],
    ['swaEvictedSeqlen on the page (8 vs 4)', { swaEvictedSeqlen: 8 }, { swaEvictedSeqlen: 4 }, 'swaEvictedSeqlen 4 must be page aligned (page 8)'],
    ['swaEvictedSeqlen ≤ kvCommittedLen', { swaEvictedSeqlen: 16, kvCommittedLen: 16 }, { swaEvictedSeqlen: 16, kvCommittedLen: 15 }, 'swaEvictedSeqlen 16 must be page aligned (page 8) and within [0, 15]'],
    ['0 ≤ swaEvictedSeqlen', { swaEvictedSeqlen: 0 }, { swaEvictedSeqlen: -8 }, 'swaEvictedSeqlen -8'],
    ['the order with NaN', { kvCommittedLen: 13 }, { kvCommittedLen: Number.NaN }, 'kvCommittedLen NaN'],
  ] as const)('%s: the accepted side passes, the refused side throws RequestStateError naming the values', (_rule, accepted, refused, named) => {
    expect(() => checkReqKvInfo({ ...control, ...accepted }, kPage, kRowLength)).not.toThrow();
    const record = { ...control, ...refused };
    const before = { ...record };
    expect(() => checkReqKvInfo(record, kPage, kRowLength)).toThrow(RequestStateError);
    expect(() => checkReqKvInfo(record, kPage, kRowLength)).toThrow(named);
    expect(() => checkReqKvInfo(record, kPage, kRowLength)).toThrow(`row ${control.reqPoolIdx}:`);
    expect(record).toEqual(before);
  });

  // Exposes a gap: lengths are not checked to be integers, so a fractional length reaches the finish
  // paths, which then fail half-way (see radix-cache.test.ts, validation).
  it.each([
    ['kvCommittedLen', { kvCommittedLen: 12.5 }],
    ['kvAllocatedLen', { kvAllocatedLen: 19.5 }],
  ] as const)('a fractional %s is refused with RequestStateError', (_name, refused) => {
    expect(() => checkReqKvInfo({ ...control, ...refused }, kPage, kRowLength)).toThrow(RequestStateError);
  });

  it('page 1 makes every length aligned', () => {
    expect(() => checkReqKvInfo({ ...control, cacheProtectedLen: 3, swaEvictedSeqlen: 5 }, 1, kRowLength)).not.toThrow();
  });
});
