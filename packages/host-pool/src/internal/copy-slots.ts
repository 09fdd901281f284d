/** Below this many slots a loop copies faster than `TypedArray.set`, which first makes a view of the source. */
const kBulkCopyMin = 32;

/**
 * `src[from, from + n)` to `dst[at, at + n)`: a memcpy (`set`) for a bulk copy from an `Int32Array`,
 * a loop for a few slots or another array-like. A bulk copy goes through `set` because a per-slot
 * loop costs far more per slot than a memcpy, and the alloc/free cycle copies every slot.
 *
 * @internal
 */
export function copySlots(src: ArrayLike<number>, from: number, dst: Int32Array, at: number, n: number): void {
  if (n >= kBulkCopyMin && src instanceof Int32Array) {
    dst.set(from === 0 && n === src.length ? src : src.subarray(from, from + n), at);
  } else {
    for (let i = 0; i < n; i++) dst[at + i] = src[from + i] as number;
  }
}
