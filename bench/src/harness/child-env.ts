/**
 * The environment of every bench child. Besides the parent's, glibc's malloc is told to keep
 * freed memory: `mmap_threshold` 32 MiB (blocks below it come from the heap, not a fresh mapping)
 * and `trim_threshold` 1 GiB (the heap's top is not handed back to the kernel).
 *
 * Why: a call that returns a large result array otherwise faults in fresh pages whenever a GC
 * has freed earlier arrays and malloc has trimmed its heap, differently in each variant's heap, so
 * the ratio measured the page faults rather than the code (bench/README.md, "How a run works" 2).
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
