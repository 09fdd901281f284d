/**
 * The checks' per-slot work for a large host pool, as a WebAssembly module with 128-bit SIMD:
 * `scan` notes the runs of consecutive slots of a call ({@link RunNotes}), sixteen slots a step
 * (inside a long run the step is compared whole with the slots the run expects there; elsewhere
 * each slot with the one before it in a lane, a branch per run opened); `flip` checks and flips
 * the `slot_used` flags of all the call's runs ({@link UsedBits}), a long run's middle words four at
 * a time.
 *
 * Why: a checked free must read every slot it is given (an array from outside proves nothing), and
 * in JavaScript that read costs 0.7–1.0 ns a slot (V8 checks a typed array's map and bounds at each
 * step). The unchecked free copies the same slots with `TypedArray.set`, a memcpy at ~0.06 ns a
 * slot, so a JavaScript scan was 13–15% of an alloc/free cycle on a fresh pool; in SIMD a step of
 * sixteen slots that continue one run costs about what four did in JavaScript.
 *
 * Both read and write one `WebAssembly.Memory` of the pool's own ({@link WasmRunArea}): the slots
 * scanned must be in it (the checked pool keeps its release list there, and copies a first-fit
 * hand-out there), and so are the notes and the flag words. Written here byte by byte, the module
 * is small enough to read against its text below.
 *
 * @internal
 */

// ---- the module ------------------------------------------------------------------------------

const uleb = (v: number): number[] => {
  const out: number[] = [];
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
};
const sleb = (v: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
const name = (s: string): number[] => vec([...s].map((ch) => [ch.charCodeAt(0)]));

const kI32 = 0x7f;
const kV128 = 0x7b;
const get = (i: number): number[] => [0x20, ...uleb(i)];
const set = (i: number): number[] => [0x21, ...uleb(i)];
const tee = (i: number): number[] => [0x22, ...uleb(i)];
const i32 = (v: number): number[] => [0x41, ...sleb(v)];
const load = [0x28, 2, 0];
const store = [0x36, 2, 0];
const add = [0x6a];
const sub = [0x6b];
const shl = [0x74];
const ne = [0x47];
const geU = [0x4f];
const gtU = [0x4b];
const block = [0x02, 0x40];
const loop = [0x03, 0x40];
const ifThen = [0x04, 0x40];
const end = [0x0b];
const br = (depth: number): number[] => [0x0c, depth];
const brIf = (depth: number): number[] => [0x0d, depth];
const call = (f: number): number[] => [0x10, ...uleb(f)];
const v128Load = (offset: number): number[] => [0xfd, 0x00, 2, ...uleb(offset)];
const i32x4Splat = [0xfd, 0x11];
const i32x4Eq = [0xfd, 0x37];
const i32x4Sub = [0xfd, 0xb1, 0x01];
const i32x4Bitmask = [0xfd, 0xa4, 0x01];
const and = [0x71];
const or = [0x72];
const xor = [0x73];
const eqz = [0x45];
const ctz = [0x68];
const ret = [0x0f];
const i32x4AllTrue = [0xfd, 0xa3, 0x01];
const v128Store = [0xfd, 0x0b, 2, 0];
const v128Const = (lanes: [number, number, number, number]): number[] => [0xfd, 0x0c, ...lanes.flatMap((v) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24])];
const v128Or = [0xfd, 0x50];
const v128Xor = [0xfd, 0x51];
const v128AnyTrue = [0xfd, 0x53];
const i32x4Add = [0xfd, 0xae, 0x01];
const ltS = [0x48];
const gtS = [0x4a];
const leU = [0x4d];
const ltU = [0x49];
const shrU = [0x76];
const select = [0x1b];
const orElse = [0x05];

// Function 1, (func $notes (param $p $from $to $starts $firsts $runs) (result i32)), locals $a $s:
// slots [from, to) one by one (from ≥ 1: each compared with the slot before it in memory); a
// slot that does not continue the one before opens run $runs (its index, its slot); returns the
// new run count.
const [P, FROM, TO, STARTS, FIRSTS, RUNS, A, S] = [0, 1, 2, 3, 4, 5, 6, 7];
const notesBody = [
  ...block, ...loop,
  ...get(FROM), ...get(TO), ...geU, ...brIf(1),
  // s = slots[from]; if (s != slots[from - 1] + 1)
  ...get(P), ...get(FROM), ...i32(2), ...shl, ...add, ...tee(A), ...load, ...tee(S),
  ...get(A), ...i32(4), ...sub, ...load, ...i32(1), ...add, ...ne,
  ...ifThen,
  ...get(STARTS), ...get(RUNS), ...i32(2), ...shl, ...add, ...get(FROM), ...store,
  ...get(FIRSTS), ...get(RUNS), ...i32(2), ...shl, ...add, ...get(S), ...store,
  ...get(RUNS), ...i32(1), ...add, ...set(RUNS),
  ...end,
  ...get(FROM), ...i32(1), ...add, ...set(FROM), ...br(0),
  ...end, ...end,
  ...get(RUNS),
  ...end,
];

// Function 0, exported as `scan`, (func (param $p $n $starts $firsts) (result i32)), locals $runs
// $i $a $m $k $fast and (v128) $ones $e0 $e1 $e2 $e3 $four $sixteen: notes the runs of the n slots
// (n ≥ 1) at byte $p, indices from 0, into the int32 arrays at bytes $starts and $firsts; returns
// the run count. Slot 0 opens run 0; then steps of sixteen slots, in one of two ways:
// - while the run goes on ($fast), the four vectors of the step are compared with the slots the
//   run expects there ($e0 … $e3: the slot before the step plus 1, 2, …, 16), XOR-ed and OR-ed into
//   one vector, and a step with no lane set costs no more (the common step of a long run);
// - otherwise, or when that test finds a lane set, the four vectors minus the four that start a
//   slot earlier, compared with 1 lane by lane, give $m, a bit for each slot that does not continue
//   the one before it; each set bit opens a run (lowest first), a branch per run opened, not per
//   slot. A step that opens none sets $e0 … $e3 from its last slot and turns $fast on again.
// The last fewer than sixteen go slot by slot ($notes).
const [N, S_STARTS, S_FIRSTS, S_RUNS, I, SA, M, K, FAST, ONES, E0, E1, E2, E3, FOUR, SIXTEEN] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
const breaks = (offset: number): number[] => [
  ...get(SA), ...v128Load(offset), ...get(SA), ...i32(4), ...sub, ...v128Load(offset), ...i32x4Sub, ...get(ONES), ...i32x4Eq, ...i32x4Bitmask,
];
// $e0 … $e3 = the slot at byte `address` plus 1 … 16, four lanes each.
const expectAfter = (address: number[]): number[] => [
  ...address, ...load, ...i32(1), ...add, ...i32x4Splat, ...v128Const([0, 1, 2, 3]), ...i32x4Add, ...tee(E0),
  ...get(FOUR), ...i32x4Add, ...tee(E1), ...get(FOUR), ...i32x4Add, ...tee(E2), ...get(FOUR), ...i32x4Add, ...set(E3),
];
const missed = (offset: number, expected: number): number[] => [...get(SA), ...v128Load(offset), ...get(expected), ...v128Xor];
const scanBody = [
  ...get(S_STARTS), ...i32(0), ...store,
  ...get(S_FIRSTS), ...get(P), ...load, ...store,
  ...i32(1), ...set(S_RUNS), ...i32(1), ...set(I),
  ...i32(1), ...i32x4Splat, ...set(ONES),
  ...i32(4), ...i32x4Splat, ...set(FOUR),
  ...i32(16), ...i32x4Splat, ...set(SIXTEEN),
  ...expectAfter(get(P)),
  ...i32(1), ...set(FAST),
  ...block, ...loop,
  // while (i + 16 <= n)
  ...get(I), ...i32(16), ...add, ...get(N), ...gtU, ...brIf(1),
  ...get(P), ...get(I), ...i32(2), ...shl, ...add, ...set(SA),
  ...block,
  // fast: the step goes on with the run, lane by lane, or falls through to the breaks below
  ...get(FAST), ...eqz, ...brIf(0),
  ...missed(0, E0), ...missed(16, E1), ...v128Or, ...missed(32, E2), ...missed(48, E3), ...v128Or, ...v128Or, ...v128AnyTrue, ...brIf(0),
  ...get(E0), ...get(SIXTEEN), ...i32x4Add, ...set(E0),
  ...get(E1), ...get(SIXTEEN), ...i32x4Add, ...set(E1),
  ...get(E2), ...get(SIXTEEN), ...i32x4Add, ...set(E2),
  ...get(E3), ...get(SIXTEEN), ...i32x4Add, ...set(E3),
  ...get(I), ...i32(16), ...add, ...set(I), ...br(1),
  ...end,
  // m = ~(lanes that continue) & 0xffff
  ...breaks(0), ...breaks(16), ...i32(4), ...shl, ...or, ...breaks(32), ...i32(8), ...shl, ...or, ...breaks(48), ...i32(12), ...shl, ...or,
  ...i32(0xffff), ...xor, ...tee(M),
  ...eqz, ...tee(FAST), ...ifThen, ...expectAfter([...get(SA), ...i32(60), ...add]), ...end,
  ...block, ...loop,
  ...get(M), ...eqz, ...brIf(1),
  // k = ctz(m): slot i + k opens run $runs
  ...get(M), ...ctz, ...set(K),
  ...get(S_STARTS), ...get(S_RUNS), ...i32(2), ...shl, ...add, ...get(I), ...get(K), ...add, ...store,
  ...get(S_FIRSTS), ...get(S_RUNS), ...i32(2), ...shl, ...add, ...get(SA), ...get(K), ...i32(2), ...shl, ...add, ...load, ...store,
  ...get(S_RUNS), ...i32(1), ...add, ...set(S_RUNS),
  ...get(M), ...get(M), ...i32(1), ...sub, ...and, ...set(M),
  ...br(0),
  ...end, ...end,
  ...get(I), ...i32(16), ...add, ...set(I), ...br(0),
  ...end, ...end,
  ...get(P), ...get(I), ...get(N), ...get(S_STARTS), ...get(S_FIRSTS), ...get(S_RUNS), ...call(1),
  ...end,
];

// The $count words at byte $p (params of $same and $fill, with $was the value and locals $end and
// $wide, $was in every lane): `wide` on four words a step, then `one` on each word left, $p moving on.
const [W_COUNT, W_WAS, W_END, W_WIDE] = [1, 2, 3, 4];
const wordSteps = (mask: number, step: number, body: number[]): number[] => [
  // end = p + 4 * (count & mask)
  ...get(P), ...get(W_COUNT), ...i32(mask), ...and, ...i32(2), ...shl, ...add, ...set(W_END),
  ...block, ...loop,
  ...get(P), ...get(W_END), ...geU, ...brIf(1),
  ...body,
  ...get(P), ...i32(step), ...add, ...set(P), ...br(0),
  ...end, ...end,
];
const overWords = (wide: number[], one: number[]): number[] => [...get(W_WAS), ...i32x4Splat, ...set(W_WIDE), ...wordSteps(-4, 16, wide), ...wordSteps(3, 4, one)];

// Function 2, (func $same (param $p $count $was) (result i32)): 1 when the $count words at byte $p
// all equal $was, else 0: the middle of a long run's flags.
const sameBody = [
  ...overWords(
    [...get(P), ...v128Load(0), ...get(W_WIDE), ...i32x4Eq, ...i32x4AllTrue, ...eqz, ...ifThen, ...i32(0), ...ret, ...end],
    [...get(P), ...load, ...get(W_WAS), ...ne, ...ifThen, ...i32(0), ...ret, ...end],
  ),
  ...i32(1),
  ...end,
];

// Function 3, (func $fill (param $p $count $value)): the $count words at byte $p become $value.
const fillBody = [...overWords([...get(P), ...get(W_WIDE), ...v128Store], [...get(P), ...get(W_WAS), ...store]), ...end];

// Function 4, exported as `flip`, (func (param $firsts $starts $runs $n $was $words $size) (result
// i32)): UsedBits.flipRuns over words at byte $words (the notes at bytes $firsts, $starts): each run
// [first, first + length) in [0, size) whose bits all equal $was (a word of it: 0 or -1) is flipped
// by XOR; at the first run that is not, returns its start index; else $n. Within two words both
// masks are applied without a branch on the run's shape; longer runs check and fill their middle
// words four at a time ($same, $fill).
const [F_FIRSTS, F_STARTS, F_RUNS, F_N, F_WAS, F_WORDS, F_SIZE] = [0, 1, 2, 3, 4, 5, 6];
const [F_R, F_AT, F_LEN, F_FIRST, F_LAST, F_HEAD, F_TAIL, F_CROSS, F_M0, F_M1, F_X0, F_A0, F_A1] = [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
const refuse = [...get(F_AT), ...ret];
const flipBody = [
  ...i32(0), ...set(F_R),
  ...block, ...loop,
  ...get(F_R), ...get(F_RUNS), ...geU, ...brIf(1),
  // at = starts[r]; length = (r + 1 < runs ? starts[r + 1] : n) - at; first = firsts[r]
  ...get(F_STARTS), ...get(F_R), ...i32(2), ...shl, ...add, ...tee(F_A0), ...load, ...set(F_AT),
  ...get(F_A0), ...i32(4), ...add, ...load, ...get(F_N), ...get(F_R), ...i32(1), ...add, ...get(F_RUNS), ...ltU, ...select,
  ...get(F_AT), ...sub, ...set(F_LEN),
  ...get(F_FIRSTS), ...get(F_R), ...i32(2), ...shl, ...add, ...load, ...set(F_FIRST),
  // inside the pool: 0 <= first <= size and length <= size - first
  ...get(F_FIRST), ...i32(0), ...ltS, ...get(F_FIRST), ...get(F_SIZE), ...gtS, ...or,
  ...get(F_LEN), ...get(F_SIZE), ...get(F_FIRST), ...sub, ...gtS, ...or, ...ifThen, ...refuse, ...end,
  ...get(F_FIRST), ...get(F_LEN), ...add, ...i32(1), ...sub, ...set(F_LAST),
  ...i32(-1), ...get(F_FIRST), ...i32(31), ...and, ...shl, ...set(F_HEAD),
  ...i32(-1), ...i32(31), ...get(F_LAST), ...i32(31), ...and, ...sub, ...shrU, ...set(F_TAIL),
  ...get(F_LAST), ...i32(5), ...shrU, ...get(F_FIRST), ...i32(5), ...shrU, ...sub, ...set(F_CROSS),
  ...get(F_WORDS), ...get(F_FIRST), ...i32(5), ...shrU, ...i32(2), ...shl, ...add, ...set(F_A0),
  ...get(F_A0), ...get(F_CROSS), ...i32(2), ...shl, ...add, ...set(F_A1),
  ...get(F_CROSS), ...i32(1), ...leU,
  ...ifThen,
  // two = -cross; m0 = head & (tail | two); m1 = tail & two
  ...get(F_HEAD), ...get(F_TAIL), ...i32(0), ...get(F_CROSS), ...sub, ...or, ...and, ...set(F_M0),
  ...get(F_TAIL), ...i32(0), ...get(F_CROSS), ...sub, ...and, ...set(F_M1),
  ...get(F_A0), ...load, ...set(F_X0),
  ...get(F_X0), ...get(F_WAS), ...xor, ...get(F_M0), ...and, ...get(F_A1), ...load, ...get(F_WAS), ...xor, ...get(F_M1), ...and, ...or,
  ...ifThen, ...refuse, ...end,
  ...get(F_A0), ...get(F_X0), ...get(F_M0), ...xor, ...store,
  ...get(F_A1), ...get(F_A1), ...load, ...get(F_M1), ...xor, ...store,
  ...orElse,
  ...get(F_A0), ...load, ...get(F_HEAD), ...and, ...get(F_WAS), ...get(F_HEAD), ...and, ...ne, ...ifThen, ...refuse, ...end,
  ...get(F_A1), ...load, ...get(F_TAIL), ...and, ...get(F_WAS), ...get(F_TAIL), ...and, ...ne, ...ifThen, ...refuse, ...end,
  ...get(F_A0), ...i32(4), ...add, ...get(F_CROSS), ...i32(1), ...sub, ...get(F_WAS), ...call(2), ...eqz, ...ifThen, ...refuse, ...end,
  ...get(F_A0), ...i32(4), ...add, ...get(F_CROSS), ...i32(1), ...sub, ...get(F_WAS), ...i32(-1), ...xor, ...call(3),
  ...get(F_A0), ...get(F_A0), ...load, ...get(F_HEAD), ...xor, ...store,
  ...get(F_A1), ...get(F_A1), ...load, ...get(F_TAIL), ...xor, ...store,
  ...end,
  ...get(F_R), ...i32(1), ...add, ...set(F_R), ...br(0),
  ...end, ...end,
  ...get(F_N),
  ...end,
];

const body = (locals: [count: number, type: number][], code: number[]): number[] => {
  const bytes = [...vec(locals.map(([count, type]) => [...uleb(count), type])), ...code];
  return [...uleb(bytes.length), ...bytes];
};

/** The module: imports `m.mem` (a memory of any size), exports `scan` and `flip`. */
export const kRunScanModuleBytes: Uint8Array = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, vec([
    [0x60, ...vec([[kI32], [kI32], [kI32], [kI32]]), ...vec([[kI32]])],
    [0x60, ...vec([[kI32], [kI32], [kI32], [kI32], [kI32], [kI32]]), ...vec([[kI32]])],
    [0x60, ...vec([[kI32], [kI32], [kI32]]), ...vec([[kI32]])],
    [0x60, ...vec([[kI32], [kI32], [kI32]]), ...vec([])],
    [0x60, ...vec([[kI32], [kI32], [kI32], [kI32], [kI32], [kI32], [kI32]]), ...vec([[kI32]])],
  ])),
  ...section(2, vec([[...name('m'), ...name('mem'), 0x02, 0x00, 0x00]])),
  ...section(3, vec([[0], [1], [2], [3], [4]])),
  ...section(7, vec([[...name('scan'), 0x00, 0], [...name('flip'), 0x00, 4]])),
  ...section(10, vec([
    body([[6, kI32], [7, kV128]], scanBody),
    body([[2, kI32]], notesBody),
    body([[1, kI32], [1, kV128]], sameBody),
    body([[1, kI32], [1, kV128]], fillBody),
    body([[13, kI32]], flipBody),
  ])),
]);

// ---- the area --------------------------------------------------------------------------------

/** Below this many slots a pool scans in JavaScript: a memory costs a reservation, and small pools are many (the fuzzers make thousands). */
export const kWasmScanMinSlots = 4096;
/** Four int32 areas of this many slots and their bits fit the 4 GiB a 32-bit memory addresses. */
export const kWasmScanMaxSlots = 2 ** 28 - 2 ** 24;

type ScanFn = (p: number, n: number, starts: number, firsts: number) => number;
type FlipFn = (firsts: number, starts: number, runs: number, n: number, was: number, words: number, size: number) => number;

// The part of the WebAssembly API used here (the packages build without the DOM or Node typings).
interface WasmModule {
  readonly kind?: never;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
  Instance: new (module: WasmModule, imports: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: WasmModule | null | undefined;

/** The module, compiled once per process; null where this engine has no WebAssembly SIMD. */
function runScanModule(): WasmModule | null {
  if (compiled === undefined) compiled = wasm !== undefined && wasm.validate(kRunScanModuleBytes) ? new wasm.Module(kRunScanModuleBytes) : null;
  return compiled;
}

/**
 * One memory holding four int32 areas of `capacity` slots: `pending` (a checked pool's release
 * list), `scratch` (a first-fit hand-out, copied there to be scanned), `starts` and `firsts` (the
 * notes); then `words`, a bit per slot (the pool's `slot_used` flags); and the functions over it.
 */
export class WasmRunArea {
  readonly buffer: ArrayBuffer;
  readonly pending: Int32Array;
  readonly scratch: Int32Array;
  readonly starts: Int32Array;
  readonly firsts: Int32Array;
  /** A bit per slot, `(capacity + 31) >>> 5` words. */
  readonly words: Int32Array;
  // Where each array starts, in bytes, as plain numbers for the calls: a scan or flip tells the
  // area's arrays by identity and reads these, instead of four or five `buffer` / `byteOffset`
  // getters a call.
  readonly pendingAt: number;
  readonly scratchAt: number;
  readonly startsAt: number;
  readonly firstsAt: number;
  readonly wordsAt: number;
  /** Notes the runs of `n ≥ 1` slots at byte `p` of the memory into `starts` / `firsts`; returns the run count. */
  readonly scanAt: ScanFn;
  /** `UsedBits.flipRuns` over the words at byte `words` (the notes at bytes `firsts`, `starts`, in this memory). */
  readonly flipAt: FlipFn;

  private constructor(api: WasmApi, module: WasmModule, capacity: number) {
    const wordCount = (capacity + 31) >>> 5;
    const memory = new api.Memory({ initial: Math.ceil((16 * capacity + 4 * wordCount) / 65536) });
    const instance = new api.Instance(module, { m: { mem: memory } });
    this.buffer = memory.buffer;
    this.pending = new Int32Array(this.buffer, 0, capacity);
    this.scratch = new Int32Array(this.buffer, 4 * capacity, capacity);
    this.starts = new Int32Array(this.buffer, 8 * capacity, capacity);
    this.firsts = new Int32Array(this.buffer, 12 * capacity, capacity);
    this.words = new Int32Array(this.buffer, 16 * capacity, wordCount);
    this.pendingAt = 0;
    this.scratchAt = 4 * capacity;
    this.startsAt = 8 * capacity;
    this.firstsAt = 12 * capacity;
    this.wordsAt = 16 * capacity;
    this.scanAt = instance.exports['scan'] as ScanFn;
    this.flipAt = instance.exports['flip'] as FlipFn;
  }

  /** An area for calls of up to `capacity` slots, or null: a small or huge capacity, no SIMD, or a memory the engine refused. */
  static create(capacity: number): WasmRunArea | null {
    if (capacity < kWasmScanMinSlots || capacity > kWasmScanMaxSlots) return null;
    const module = runScanModule();
    if (module === null || wasm === undefined) return null;
    try {
      return new WasmRunArea(wasm, module, capacity);
    } catch (error) {
      // An engine out of address space for another memory: the JavaScript scan does the same work.
      if (error instanceof RangeError) return null;
      throw error;
    }
  }
}
