/**
 * The environment of every bench child. Besides the parent's, glibc's malloc is told to keep
 * freed memory: `mmap_threshold` 32 MiB (blocks below it come from the heap, not a fresh mapping)
 * and `trim_threshold` 1 GiB (the heap's top is not handed back to the kernel).
 *
 * Why: a call that returns a large result array (alloc of a 32k-token row: a 128 KiB
 * `Int32Array`, allocated with `calloc`) otherwise gets fresh pages whenever a GC has freed
 * earlier arrays and malloc has trimmed the heap, and faults them in — 22–32 minor faults a call
 * measured at page 1, about a fifth of the call's time, in a pattern that differed between the two
 * variants' heaps (the checked children faulted 17–22 times a call, the unchecked 26–32) and from
 * child to child. Per-round ratios of alloc + freeSegments at page 1 then ranged 0.85–1.35. With
 * the heap kept: 0.0–0.2 faults a call in both variants, and the spread is the code's.
 *
 * A `GLIBC_TUNABLES` the caller set wins (a run can measure the default malloc with
 * `GLIBC_TUNABLES= pnpm bench`); the report records what the children got
 * (`machine.mallocTunables`). Other C libraries ignore the variable.
 */
export const kChildMallocTunables = 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824';

/** The `GLIBC_TUNABLES` the children get under `parent`. */
export function childMallocTunables(parent: NodeJS.ProcessEnv = process.env): string {
  return parent['GLIBC_TUNABLES'] ?? kChildMallocTunables;
}

/** The environment of a child started from `parent`. */
export function childEnv(parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...parent, NO_COLOR: '1', GLIBC_TUNABLES: childMallocTunables(parent) };
}
