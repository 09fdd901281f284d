/**
 * The cycle the host pool always runs in HiCache, and the one its checks are gated on:
 * `HostSlotPool.alloc` of a written-back node's slots, the device-to-host copy of that node's KV
 * bytes into the host buffer at those slots, and later `free` of each node, in another order. The
 * host pool exists to move KV between device and host, so its checks are judged against that
 * work; the bookkeeping alone is `alloc-free.bench.ts` (informational).
 *
 * Both buffers are laid out a slot after another, `kvBytesPerToken` bytes a slot (SGLang's
 * `page_first` host layout: a page's K and V of every layer are one contiguous run), so a page is
 * one copy. The device buffer is an ArrayBuffer standing in for device memory, read in the
 * scattered page order a device allocator leaves; `kvBytesPerToken` comes from the run
 * (`--model`, default Qwen2.5-0.5B: kv-models.ts). As in `alloc-free.bench.ts`, the pool holds
 * exactly one mix and every timed call starts from a snapshot restored untimed.
 */
import { HostSlotPool } from '@kvfuzz/host-pool';
import { do_not_optimize } from 'mitata';
import { benchPair, crossProduct, type SetupContext, type TimedOp } from '../harness/bench-pair.js';
import { kGeometriesQuick } from '../harness/geometries.js';
import { kHostCyclePoints, kKvCopyName, kvCopyWorkload, stateCycles, type HostCyclePoint, type KvCopyWorkload } from './cycle-workload.js';

/** The byte device page `page` is filled with: every page committed before timing, and told apart in tests. */
export function deviceFill(page: number): number {
  return 1 + (page % 255);
}

/**
 * @throws Error when a host page of an allocation is not `pageSize` consecutive slots from a
 *   page-aligned first slot (the copy writes a page as one run).
 */
function assertWholePages(slots: Int32Array, pageSize: number): void {
  for (let q = 0; q < slots.length; q += pageSize) {
    const first = slots[q] as number;
    if (first % pageSize !== 0) throw new Error(`host-pool copy bench: page at ${q} starts at slot ${first}, not page-aligned`);
    for (let s = 1; s < pageSize; s++) if (slots[q + s] !== first + s) throw new Error(`host-pool copy bench: page at ${q} is not consecutive slots`);
  }
}

/** What {@link kvCopyCycle} builds: the timed op, and what a test reads after a call. */
export interface KvCopyCycle {
  readonly op: TimedOp;
  readonly workload: KvCopyWorkload;
  /** The host pool's KV buffer, `kvBytesPerToken` bytes a slot. */
  readonly host: Uint8Array;
  /** `held[i]`: node i's slots in the last cycle. */
  readonly held: readonly Int32Array[];
}

/**
 * Builds one variant's copy cycle (untimed).
 *
 * @internal exported for its test; the bench's setup is this cycle's op.
 */
export function kvCopyCycle(args: HostCyclePoint, checks: boolean, context: SetupContext): KvCopyCycle {
  const workload = kvCopyWorkload(args, context.kvBytesPerToken);
  const { pageSize, sizes, freeOrder, sizeTokens, kvBytesPerToken, devicePages } = workload;
  const pool = new HostSlotPool({ sizeTokens, pageSize, dcpSize: args.dcp, checks });
  const pageBytes = pageSize * kvBytesPerToken;
  const device = new Uint8Array(devicePages.length * pageBytes);
  for (let page = 0; page < devicePages.length; page++) device.fill(deviceFill(page), page * pageBytes, (page + 1) * pageBytes);
  const host = new Uint8Array(pool.size * kvBytesPerToken).fill(0);
  // sources[q]: the device page the cycle's q-th host page is copied from, as a view made here, untimed.
  const sources = Array.from(devicePages, (page) => device.subarray(page * pageBytes, (page + 1) * pageBytes));
  const nodes = sizes.length;
  const held: Int32Array[] = Array.from({ length: nodes }, () => new Int32Array(0));
  // restored counts restores not yet used: a cycle must follow its own restore.
  let restored = 0;
  const fn = (p: HostSlotPool): void => {
    if (--restored !== 0) throw new Error('host-pool copy bench: a cycle ran without its own restore');
    let q = 0;
    for (let i = 0; i < nodes; i++) {
      const slots = p.alloc(sizes[i] as number) as Int32Array;
      held[i] = slots;
      for (let s = 0; s < slots.length; s += pageSize) host.set(sources[q++] as Uint8Array, (slots[s] as number) * kvBytesPerToken);
    }
    for (let j = 0; j < nodes; j++) p.free(held[freeOrder[j] as number] as Int32Array);
    do_not_optimize(host);
  };
  // The state is built by the cycle's bookkeeping alone: the copy changes no pool state, and copying
  // 200 cycles' KV would make a fragmented child's setup take seconds.
  const warm = stateCycles(args.state);
  for (let c = 0; c < warm; c++) {
    for (let i = 0; i < nodes; i++) held[i] = pool.alloc(sizes[i] as number) as Int32Array;
    for (let j = 0; j < nodes; j++) pool.free(held[freeOrder[j] as number] as Int32Array);
  }
  const snapshot = pool.backupState();
  // Every timed call makes these same allocations from the snapshot; check their pages once.
  for (let i = 0; i < nodes; i++) assertWholePages(pool.alloc(sizes[i] as number) as Int32Array, pageSize);
  pool.restoreState(snapshot);
  const op: TimedOp = {
    kind: 'param',
    next: () => {
      pool.restoreState(snapshot);
      restored++;
      return pool;
    },
    fn,
  };
  return { op, workload, host, held };
}

function setup(args: HostCyclePoint, checks: boolean, context: SetupContext): TimedOp {
  return kvCopyCycle(args, checks, context).op;
}

export default [
  benchPair({
    name: kKvCopyName,
    points: kHostCyclePoints,
    pointsQuick: crossProduct({ state: ['fragmented'] }, kGeometriesQuick),
    setup,
  }),
];
