/**
 * Decode context parallelism (DCP): one logical token index space over `dcpSize` ranks. Logical
 * slot `i` lives on rank `i % dcpSize` at local offset `i / dcpSize` (rounded down). With the
 * allocator page widened to `kernelPageSize × dcpSize`, logical page `p` is physical page `p` on
 * every rank.
 *
 * @packageDocumentation
 */
import { ArgumentError } from './errors.js';

function checkRank(dcpSize: number, rank: number): void {
  if (!Number.isInteger(dcpSize) || dcpSize < 1) throw new ArgumentError(`dcpSize ${String(dcpSize)} is not a positive integer`);
  if (!Number.isInteger(rank) || rank < 0 || rank >= dcpSize) throw new ArgumentError(`rank ${String(rank)} is outside [0, ${dcpSize})`);
}

/**
 * The engine's `filter_local_indices`: the logical slots that live on `rank`, as local offsets.
 *
 * @param indices - logical slots (any order; order is kept).
 * @param dcpSize - DCP world size.
 * @param rank - this rank, in `[0, dcpSize)`.
 * @throws ArgumentError for a bad DCP size or rank.
 */
export function filterLocalIndices(indices: ArrayLike<number>, dcpSize: number, rank: number): Int32Array {
  checkRank(dcpSize, rank);
  let count = 0;
  for (let i = 0; i < indices.length; i++) if ((indices[i] as number) % dcpSize === rank) count++;
  const local = new Int32Array(count);
  let k = 0;
  for (let i = 0; i < indices.length; i++) {
    const slot = indices[i] as number;
    if (slot % dcpSize === rank) local[k++] = Math.floor(slot / dcpSize);
  }
  return local;
}

/** The rank and local offset of a logical slot. */
export function logicalToLocal(slot: number, dcpSize: number): { readonly rank: number; readonly local: number } {
  return { rank: slot % dcpSize, local: Math.floor(slot / dcpSize) };
}

/**
 * The logical slot of `local` on `rank`.
 *
 * @throws ArgumentError for a bad DCP size or rank.
 */
export function localToLogical(local: number, rank: number, dcpSize: number): number {
  checkRank(dcpSize, rank);
  return local * dcpSize + rank;
}

/** The allocator page under DCP: the kernel page widened by the DCP size (e.g. 64 × 8 = 512). */
export function widenedPageSize(kernelPageSize: number, dcpSize: number): number {
  return kernelPageSize * dcpSize;
}
