/**
 * The broad bounds every command's data is checked against when a regression file is loaded:
 * types and ranges only, never the run's geometry (`alloc(3)` at page size 2 is valid data; the
 * reference then throws, which is a real "still fails"). They exist so that a hostile file cannot
 * make one command allocate without limit.
 */
import { kDcpSizes } from '@kvfuzz/allocator-core';
import { z } from 'zod';
import { kKernelPageSizes } from './allocator/geometry.js';
import { kRowPagesMax } from './prefix-cache/geometry.js';

/** Largest pick, count or drawn number in a command's data: int32, so it stays exact in an Int32Array lane. */
export const kDataIntMax = 2 ** 31 - 1;

/** Largest page a model draws (tokens): the largest kernel page widened by the largest DCP. */
const kPageTokensMax = Math.max(...kKernelPageSizes) * Math.max(...kDcpSizes);

/**
 * Largest token count in a command's data: four times the longest row a model builds
 * (`kRowPagesMax` pages of the largest page), so a command cannot build a prompt of billions of tokens.
 */
export const kDataTokensMax = 4 * kRowPagesMax * kPageTokensMax;

/** Longest list (batch, mask, cuts), or largest burst, in a command's data: the models draw at most 9. */
export const kDataListMax = 64;

// Every token count a model draws fits (a row, a load-back quota of 16 pages), and every bound is an int32.
if (kDataTokensMax < 16 * kPageTokensMax) throw new Error(`kDataTokensMax ${kDataTokensMax} is below a token count the models draw`);
if (kDataTokensMax > kDataIntMax) throw new Error(`kDataTokensMax ${kDataTokensMax} exceeds kDataIntMax`);

/** A pick, count or drawn number: an integer in `[0, kDataIntMax]`. */
export const dataIntSchema = z.int().min(0).max(kDataIntMax);

/** A token count: an integer in `[0, kDataTokensMax]`. */
export const dataTokensSchema = z.int().min(0).max(kDataTokensMax);

/** A pick into the live set, or `null` for a new row. */
export const dataPickOrNullSchema = dataIntSchema.nullable();

/** A list of at most `kDataListMax` items. */
export function dataListSchema<T extends z.ZodType>(item: T): z.ZodArray<T> {
  return z.array(item).max(kDataListMax);
}
