/**
 * WGSL sources, one function per kernel, each baking its parameters in as `const`s (STYLE 20).
 *
 * The extend layout of the engine's `alloc_extend_kernel` (part 1 fills the old page, part 2 whole
 * new pages, part 3 the tail) in two passes: `scan` — one workgroup — turns per-request
 * token and new-page counts into exclusive batch-order offsets; `fill` — one thread per output
 * slot — finds its request by binary search over the token offsets and writes the slot: in the
 * last partly filled page after `lastLoc`, or at `pos % pageSize` of the request's
 * `(pos − ceil(pre)) / pageSize`-th new page. A decode is an extend of one token with
 * `pre = seq − 1`, so it needs no kernel of its own.
 *
 * @packageDocumentation
 */
import { kWorkgroupSize } from './kernel-limits.js';

/**
 * Planted kernel bugs (the extend layout, the page count, the capacity check, and the batch free
 * without its check), for the differential tests and the lock-step fuzz model, which must catch
 * each one:
 * - `cursor-inclusive`: the page cursor sums new pages over `j ≤ i`, not `j < i`;
 * - `tail-first-page`: part 3 lands on the first, not the last, page of the request's range;
 * - `part1-unbounded`: part 1 runs to the page end without `min(seq, …)`, writing over
 *   the slots of the requests after it (the earliest overrunning request wins);
 * - `page-count-floor`: new pages counted with floor, and the short check uses that count;
 * - `capacity-unchecked`: no capacity check before the kernel, which then reads free
 *   pages that do not exist instead of returning `null`;
 * - `free-unchecked`: the checked batch free runs the unchecked kernel, so a page named twice, or
 *   not held, is freed instead of reported.
 */
export type KernelBug = 'none' | 'cursor-inclusive' | 'tail-first-page' | 'part1-unbounded' | 'page-count-floor' | 'capacity-unchecked' | 'free-unchecked';
const kBugIds: Record<KernelBug, number> = {
  none: 0,
  'cursor-inclusive': 1,
  'tail-first-page': 2,
  'page-count-floor': 3,
  'part1-unbounded': 4,
  'capacity-unchecked': 5,
  'free-unchecked': 6,
};

export function scanSource(pageSize: number, bug: KernelBug): string {
  return /* wgsl */ `
const kThreads: u32 = ${kWorkgroupSize}u;
const kPageSize: u32 = ${pageSize}u;
const kBug: u32 = ${kBugIds[bug]}u;

struct Params { batchSize: u32, totalSlots: u32, pad0: u32, pad1: u32 }

@group(0) @binding(0) var<storage, read> prefixLens: array<u32>;
@group(0) @binding(1) var<storage, read> seqLens: array<u32>;
@group(0) @binding(2) var<storage, read_write> slotOffsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> pageOffsets: array<u32>;
@group(0) @binding(4) var<uniform> params: Params;

var<workgroup> slotSums: array<u32, ${kWorkgroupSize}>;
var<workgroup> pageSums: array<u32, ${kWorkgroupSize}>;

fn pagesUpTo(tokens: u32) -> u32 {
  if (kBug == 3u) { return tokens / kPageSize; }
  return (tokens + kPageSize - 1u) / kPageSize;
}

fn newPages(i: u32) -> u32 { return pagesUpTo(seqLens[i]) - pagesUpTo(prefixLens[i]); }

@compute @workgroup_size(${kWorkgroupSize})
fn scan(@builtin(local_invocation_index) t: u32) {
  let batchSize = params.batchSize;
  let chunk = (batchSize + kThreads - 1u) / kThreads;
  let begin = min(t * chunk, batchSize);
  let end = min(begin + chunk, batchSize);
  var slots = 0u;
  var pages = 0u;
  for (var i = begin; i < end; i++) {
    slots += seqLens[i] - prefixLens[i];
    pages += newPages(i);
  }
  slotSums[t] = slots;
  pageSums[t] = pages;
  workgroupBarrier();
  // Inclusive Hillis–Steele scan of the per-thread sums.
  for (var d = 1u; d < kThreads; d = d * 2u) {
    var addSlots = 0u;
    var addPages = 0u;
    if (t >= d) {
      addSlots = slotSums[t - d];
      addPages = pageSums[t - d];
    }
    workgroupBarrier();
    slotSums[t] += addSlots;
    pageSums[t] += addPages;
    workgroupBarrier();
  }
  var slotRun = 0u;
  var pageRun = 0u;
  if (t > 0u) {
    slotRun = slotSums[t - 1u];
    pageRun = pageSums[t - 1u];
  }
  for (var i = begin; i < end; i++) {
    slotOffsets[i] = slotRun;
    pageOffsets[i] = pageRun;
    slotRun += seqLens[i] - prefixLens[i];
    pageRun += newPages(i);
  }
  if (t == kThreads - 1u) {
    slotOffsets[batchSize] = slotSums[t];
    pageOffsets[batchSize] = pageSums[t];
  }
}
`;
}

export function fillSource(pageSize: number, bug: KernelBug): string {
  return /* wgsl */ `
const kPageSize: u32 = ${pageSize}u;
const kBug: u32 = ${kBugIds[bug]}u;

struct Params { batchSize: u32, totalSlots: u32, pad0: u32, pad1: u32 }

@group(0) @binding(0) var<storage, read> prefixLens: array<u32>;
@group(0) @binding(1) var<storage, read> seqLens: array<u32>;
@group(0) @binding(2) var<storage, read> lastLoc: array<i32>;
@group(0) @binding(3) var<storage, read> slotOffsets: array<u32>;
@group(0) @binding(4) var<storage, read> pageOffsets: array<u32>;
@group(0) @binding(5) var<storage, read> freePages: array<u32>;
@group(0) @binding(6) var<storage, read_write> out: array<i32>;
@group(0) @binding(7) var<uniform> params: Params;

@compute @workgroup_size(${kWorkgroupSize})
fn fill(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = gid.x;
  if (t >= params.totalSlots) { return; }
  // The last request whose slot range starts at or before t owns t (empty ranges come earlier).
  var lo = 0u;
  var hi = params.batchSize - 1u;
  while (lo < hi) {
    let mid = (lo + hi + 1u) / 2u;
    if (slotOffsets[mid] <= t) { lo = mid; } else { hi = mid - 1u; }
  }
  let i = lo;
  let pre = prefixLens[i];
  let seq = seqLens[i];
  if (kBug == 4u) {
    // Planted (part1-unbounded): an earlier request's part 1 runs on to its page end, past its own
    // seq, over this slot; the earliest such request wins.
    for (var j = 0u; j < i; j++) {
      let overrun = (prefixLens[j] + kPageSize - 1u) / kPageSize * kPageSize - prefixLens[j];
      if (t < slotOffsets[j] + overrun) {
        out[t] = lastLoc[j] + 1 + i32(t - slotOffsets[j]);
        return;
      }
    }
  }
  let pos = pre + (t - slotOffsets[i]);
  let preCeil = (pre + kPageSize - 1u) / kPageSize * kPageSize;
  if (pos < min(seq, preCeil)) {
    out[t] = lastLoc[i] + 1 + i32(pos - pre);
    return;
  }
  var block = (pos - preCeil) / kPageSize;
  var cursor = pageOffsets[i];
  if (kBug == 1u) { cursor = pageOffsets[i + 1u]; }
  if (kBug == 2u && pos >= seq / kPageSize * kPageSize) { block = 0u; }
  out[t] = i32(freePages[cursor + block] * kPageSize + pos % kPageSize);
}
`;
}

/** The batch free: gives pages back to the GPU free list; checked, it reports every page not held (or named twice) by id. */
export function freeSource(checked: boolean): string {
  return /* wgsl */ `
const kChecked: bool = ${checked};
const kHeld: u32 = 1u;
const kFree: u32 = 0u;

struct Params { count: u32, pad0: u32, pad1: u32, pad2: u32 }

@group(0) @binding(0) var<storage, read> pages: array<u32>;
@group(0) @binding(1) var<storage, read_write> pageState: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> freeList: array<u32>;
// counters[0]: pages on the free list; counters[1]: pages reported.
@group(0) @binding(3) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> reported: array<u32>;
@group(0) @binding(5) var<uniform> params: Params;

fn report(page: u32) {
  let at = atomicAdd(&counters[1], 1u);
  if (at < arrayLength(&reported)) { reported[at] = page; }
}

@compute @workgroup_size(${kWorkgroupSize})
fn freeBatch(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = gid.x;
  if (t >= params.count) { return; }
  let page = pages[t];
  if (page >= arrayLength(&pageState)) {
    report(page);
    return;
  }
  if (kChecked) {
    // One winner per page: a second naming in the batch, or a page not held, finds no kHeld to swap.
    loop {
      let swapped = atomicCompareExchangeWeak(&pageState[page], kHeld, kFree);
      if (swapped.exchanged) { break; }
      if (swapped.old_value != kHeld) {
        report(page);
        return;
      }
    }
  } else {
    atomicStore(&pageState[page], kFree);
  }
  let at = atomicAdd(&counters[0], 1u);
  if (at < arrayLength(&freeList)) { freeList[at] = page; }
}
`;
}
