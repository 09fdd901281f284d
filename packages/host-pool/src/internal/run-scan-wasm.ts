/**
 * A large host pool's per-slot work, as a WebAssembly module with 128-bit SIMD: `search` is the
 * pool's run search over its lists (both variants); `scan` notes the runs of consecutive slots of
 * a call ({@link RunNotes}) and `flip` checks and flips the `slot_used` flags of all the call's
 * runs ({@link UsedBits}), for the checks. The search and the scan read sixteen slots a step:
 * inside a long run the step is compared whole with the slots the run expects there, elsewhere
 * each slot with the one before it in a lane, a branch per run found; the flips take a long run's
 * middle words four at a time.
 *
 * Why: in JavaScript a typed-array loop costs 0.7–2 ns a slot (V8 checks a typed array's map and
 * bounds at each step): the run search, which reads the list entry by entry, was 85–90% of an
 * alloc/free cycle, and its speed moved by up to a fifth with how V8 compiled the code around it
 * (the checked and unchecked alloc differ), so the bench compared compilations as much as checks.
 * Here both variants run the same machine code, 2.5–3 times faster. A checked free must read every
 * slot it is given (an array from outside proves nothing); the unchecked free copies them with
 * `TypedArray.set`, a memcpy at ~0.06 ns a slot, and the scan reads them at ~0.11.
 *
 * All of it reads and writes one `WebAssembly.Memory` of the pool's own ({@link WasmRunArea}): the
 * lists live there (the checked pool copies a first-fit hand-out there too), and so do the notes
 * and the flag words. Written here byte by byte, the module is small enough to read against its
 * text below.
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
const loadAt = (offset: number): number[] => [0x28, 2, ...uleb(offset)];
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
const eq = [0x46];
const geS = [0x4e];
const remS = [0x6f];
const remU = [0x70];
const i32x4GtS = [0xfd, 0x3b];
const v128And = [0xfd, 0x4e];

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

// Function 5, (func $candidate (param $at $v $ps) (result i32)), locals $r $rv: where the run
// search's candidate lies in a segment of the list (consecutive ids) that starts at list offset $at
// with slot $v: the first entry of it on a page boundary of the list holding a page-aligned slot.
// Both advance by one an entry, so there is one only when $v ≡ $at (mod $ps), at $at rounded up to
// a page; else −1. Remainders, not $v − $at, which could wrap for a slot near −2^31.
const [C_AT, C_V, C_PS, C_R, C_RV] = [0, 1, 2, 3, 4];
const candidateBody = [
  ...get(C_AT), ...get(C_PS), ...remU, ...set(C_R),
  ...get(C_V), ...get(C_PS), ...remS, ...tee(C_RV), ...i32(0), ...ltS, ...ifThen, ...get(C_RV), ...get(C_PS), ...add, ...set(C_RV), ...end,
  ...get(C_RV), ...get(C_R), ...ne, ...ifThen, ...i32(-1), ...ret, ...end,
  ...get(C_R), ...eqz, ...ifThen, ...get(C_AT), ...ret, ...end,
  ...get(C_AT), ...get(C_PS), ...add, ...get(C_R), ...sub,
  ...end,
];

// Function 6, exported as `search`, (func (param $p1 $c1 $p2 $c2 $n $ps) (result i32)): the host
// pool's run search (`HostSlotPool.findRunStart`) over the list made of the $c1 slots at byte $p1
// and then the $c2 at byte $p2 (the free list, then the pending chunks): the list offset of the
// first run of $n consecutive ids that starts on a page boundary of the list ($ps entries) with a
// page-aligned slot, or −1. The list is read as segments of consecutive ids, a segment's one
// candidate given by $candidate; the run is found once the segment reaches $n entries past it.
// Steps of sixteen entries find the segments' ends as the scan does (a bit per entry that does not
// follow the one before, a slot after 2^31 − 1 included, as JavaScript's `prev + 1` never wraps);
// inside a long segment ($fast) a step is compared whole with the ids it expects. The first entry
// of each piece and the last fewer than sixteen go one by one.
const [Q_P1, Q_C1, Q_P2, Q_C2, Q_N, Q_PS] = [0, 1, 2, 3, 4, 5];
const [Q_PIECE, Q_P, Q_C, Q_BASE, Q_J, Q_AT, Q_SLOT, Q_PREV, Q_CAND, Q_M, Q_K, Q_SA, Q_STARTED, Q_FAST] = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
const [Q_ONES, Q_IOTA, Q_FOUR, Q_E, Q_V, Q_U] = [20, 21, 22, 23, 24, 25];
// return $cand when the current segment holds $n entries from it, the segment reaching `limit` (exclusive)
const foundBefore = (limit: number[]): number[] => [
  ...get(Q_CAND), ...i32(0), ...geS, ...limit, ...get(Q_CAND), ...sub, ...get(Q_N), ...geS, ...and, ...ifThen, ...get(Q_CAND), ...ret, ...end,
];
const stepEnd = [...get(Q_BASE), ...get(Q_J), ...add];
// the step's vector at `offset` XOR the ids the segment expects there ($e, moved on by four lanes after the first)
const strays = (offset: number, first: boolean): number[] => [
  ...(first ? [...get(Q_PREV), ...i32x4Splat, ...get(Q_IOTA)] : [...get(Q_E), ...get(Q_FOUR)]), ...i32x4Add, ...tee(Q_E),
  ...get(Q_SA), ...v128Load(offset), ...v128Xor,
];
// a bit for each lane that follows the entry before it: one more, and greater (no wrap past 2^31 − 1)
const follows = (offset: number): number[] => [
  ...get(Q_SA), ...v128Load(offset), ...tee(Q_V), ...get(Q_SA), ...i32(4), ...sub, ...v128Load(offset), ...tee(Q_U), ...i32x4Sub, ...get(Q_ONES), ...i32x4Eq,
  ...get(Q_V), ...get(Q_U), ...i32x4GtS, ...v128And, ...i32x4Bitmask,
];
const searchBody = [
  ...i32(1), ...i32x4Splat, ...set(Q_ONES),
  ...v128Const([1, 2, 3, 4]), ...set(Q_IOTA),
  ...i32(4), ...i32x4Splat, ...set(Q_FOUR),
  ...i32(-1), ...set(Q_CAND),
  ...get(Q_P1), ...set(Q_P), ...get(Q_C1), ...set(Q_C),
  ...block, ...loop, // pieces
  ...i32(0), ...set(Q_J),
  ...block, ...loop, // entries
  ...get(Q_J), ...get(Q_C), ...geU, ...brIf(1),
  // a step of sixteen: 1 <= j and j + 16 <= c
  ...get(Q_J), ...i32(1), ...geU, ...get(Q_J), ...i32(16), ...add, ...get(Q_C), ...leU, ...and, ...ifThen,
  ...get(Q_P), ...get(Q_J), ...i32(2), ...shl, ...add, ...set(Q_SA),
  ...block,
  // fast: the step goes on from $prev (no id past 2^31 − 17), or falls through to the bits below
  ...get(Q_FAST), ...eqz, ...brIf(0),
  ...get(Q_PREV), ...i32(0x7fffffef), ...geS, ...brIf(0),
  ...strays(0, true), ...strays(16, false), ...v128Or, ...strays(32, false), ...v128Or, ...strays(48, false), ...v128Or, ...v128AnyTrue, ...brIf(0),
  ...get(Q_J), ...i32(16), ...add, ...set(Q_J),
  ...get(Q_PREV), ...i32(16), ...add, ...set(Q_PREV),
  ...foundBefore(stepEnd),
  ...br(2),
  ...end,
  // m: a bit for each entry that starts a segment
  ...follows(0), ...follows(16), ...i32(4), ...shl, ...or, ...follows(32), ...i32(8), ...shl, ...or, ...follows(48), ...i32(12), ...shl, ...or,
  ...i32(0xffff), ...xor, ...tee(Q_M), ...eqz, ...set(Q_FAST),
  ...block, ...loop,
  ...get(Q_M), ...eqz, ...brIf(1),
  ...get(Q_M), ...ctz, ...set(Q_K),
  ...get(Q_BASE), ...get(Q_J), ...add, ...get(Q_K), ...add, ...set(Q_AT),
  ...foundBefore(get(Q_AT)),
  ...get(Q_AT), ...get(Q_SA), ...get(Q_K), ...i32(2), ...shl, ...add, ...load, ...get(Q_PS), ...call(5), ...set(Q_CAND),
  ...get(Q_M), ...get(Q_M), ...i32(1), ...sub, ...and, ...set(Q_M),
  ...br(0),
  ...end, ...end,
  ...get(Q_J), ...i32(16), ...add, ...set(Q_J),
  ...get(Q_SA), ...loadAt(60), ...set(Q_PREV),
  ...foundBefore(stepEnd),
  ...br(1),
  ...end,
  // one entry
  ...get(Q_P), ...get(Q_J), ...i32(2), ...shl, ...add, ...load, ...set(Q_SLOT),
  ...get(Q_BASE), ...get(Q_J), ...add, ...set(Q_AT),
  ...get(Q_STARTED), ...eqz, ...get(Q_PREV), ...i32(0x7fffffff), ...eq, ...or, ...get(Q_SLOT), ...get(Q_PREV), ...i32(1), ...add, ...ne, ...or, ...ifThen,
  ...foundBefore(get(Q_AT)),
  ...get(Q_AT), ...get(Q_SLOT), ...get(Q_PS), ...call(5), ...set(Q_CAND),
  ...end,
  ...i32(1), ...set(Q_STARTED),
  ...get(Q_SLOT), ...set(Q_PREV),
  ...get(Q_J), ...i32(1), ...add, ...set(Q_J),
  ...foundBefore(stepEnd),
  ...br(0),
  ...end, ...end,
  // the next piece, once
  ...get(Q_BASE), ...get(Q_C), ...add, ...set(Q_BASE),
  ...get(Q_PIECE), ...brIf(1),
  ...i32(1), ...set(Q_PIECE), ...get(Q_P2), ...set(Q_P), ...get(Q_C2), ...set(Q_C),
  ...br(0),
  ...end, ...end,
  ...i32(-1),
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
  ...section(3, vec([[0], [1], [2], [3], [4], [2], [1]])),
  ...section(7, vec([[...name('scan'), 0x00, 0], [...name('flip'), 0x00, 4], [...name('search'), 0x00, 6]])),
  ...section(10, vec([
    body([[6, kI32], [7, kV128]], scanBody),
    body([[2, kI32]], notesBody),
    body([[1, kI32], [1, kV128]], sameBody),
    body([[1, kI32], [1, kV128]], fillBody),
    body([[13, kI32]], flipBody),
    body([[2, kI32]], candidateBody),
    body([[14, kI32], [6, kV128]], searchBody),
  ])),
]);

// ---- the area --------------------------------------------------------------------------------

/** Below this many slots a pool searches and scans in JavaScript: a memory costs a reservation, and small pools are many (the fuzzers make thousands). */
export const kWasmScanMinSlots = 4096;
/** Five int32 areas of this many slots and their bits fit the 4 GiB a 32-bit memory addresses. */
export const kWasmScanMaxSlots = 3 * 2 ** 26;

type ScanFn = (p: number, n: number, starts: number, firsts: number) => number;
type FlipFn = (firsts: number, starts: number, runs: number, n: number, was: number, words: number, size: number) => number;
type SearchFn = (p1: number, c1: number, p2: number, c2: number, n: number, ps: number) => number;

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
 * One memory holding a host pool's lists, `list` (the free list's buffer) and `pending` (the
 * release list), `capacity` slots each, searched there by `searchAt` in both variants; and for a
 * checked pool `scratch` (a first-fit hand-out, copied there to be scanned), `starts` and `firsts`
 * (the run notes) and `words`, a bit per slot (the `slot_used` flags), with the functions over them.
 * An unchecked pool's area has the lists alone; its other views are empty.
 */
export class WasmRunArea {
  readonly buffer: ArrayBuffer;
  readonly list: Int32Array;
  readonly pending: Int32Array;
  readonly scratch: Int32Array;
  readonly starts: Int32Array;
  readonly firsts: Int32Array;
  /** A bit per slot, `(capacity + 31) >>> 5` words (checked). */
  readonly words: Int32Array;
  // Where each array starts, in bytes, as plain numbers for the calls: a call tells the area's
  // arrays by identity and reads these, instead of four or five `buffer` / `byteOffset` getters.
  readonly listAt: number;
  readonly pendingAt: number;
  readonly scratchAt: number;
  readonly startsAt: number;
  readonly firstsAt: number;
  readonly wordsAt: number;
  /** Notes the runs of `n ≥ 1` slots at byte `p` of the memory into `starts` / `firsts`; returns the run count. */
  readonly scanAt: ScanFn;
  /** `UsedBits.flipRuns` over the words at byte `words` (the notes at bytes `firsts`, `starts`, in this memory). */
  readonly flipAt: FlipFn;
  /** `HostSlotPool.findRunStart` over `c1` slots at byte `p1` then `c2` at byte `p2`: the run's list offset, or −1 for none. */
  readonly searchAt: SearchFn;

  private constructor(api: WasmApi, module: WasmModule, capacity: number, checked: boolean) {
    const wordCount = checked ? (capacity + 31) >>> 5 : 0;
    const checkedSlots = checked ? capacity : 0;
    const memory = new api.Memory({ initial: Math.ceil((8 * capacity + 12 * checkedSlots + 4 * wordCount) / 65536) });
    const instance = new api.Instance(module, { m: { mem: memory } });
    this.buffer = memory.buffer;
    this.listAt = 0;
    this.pendingAt = 4 * capacity;
    this.scratchAt = 8 * capacity;
    this.startsAt = this.scratchAt + 4 * checkedSlots;
    this.firstsAt = this.startsAt + 4 * checkedSlots;
    this.wordsAt = this.firstsAt + 4 * checkedSlots;
    this.list = new Int32Array(this.buffer, this.listAt, capacity);
    this.pending = new Int32Array(this.buffer, this.pendingAt, capacity);
    this.scratch = new Int32Array(this.buffer, this.scratchAt, checkedSlots);
    this.starts = new Int32Array(this.buffer, this.startsAt, checkedSlots);
    this.firsts = new Int32Array(this.buffer, this.firstsAt, checkedSlots);
    this.words = new Int32Array(this.buffer, this.wordsAt, wordCount);
    this.scanAt = instance.exports['scan'] as ScanFn;
    this.flipAt = instance.exports['flip'] as FlipFn;
    this.searchAt = instance.exports['search'] as SearchFn;
  }

  /**
   * An area for a pool of `capacity` slots (with the checks' arrays when `checked`), or null: a
   * small or huge capacity, no SIMD, or a memory the engine refused.
   */
  static create(capacity: number, checked: boolean): WasmRunArea | null {
    if (capacity < kWasmScanMinSlots || capacity > kWasmScanMaxSlots) return null;
    const module = runScanModule();
    if (module === null || wasm === undefined) return null;
    try {
      return new WasmRunArea(wasm, module, capacity, checked);
    } catch (error) {
      // An engine out of address space for another memory: the JavaScript search and scan do the same work.
      if (error instanceof RangeError) return null;
      throw error;
    }
  }
}
