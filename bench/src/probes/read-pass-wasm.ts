/**
 * The cheapest pass that reads every slot of a list once: a WebAssembly loop that ORs sixteen
 * slots a step (four 128-bit loads) into one vector and does nothing else. No check can read a
 * slot for less, so its time is a floor under any check that must look at every slot it is
 * given; the floor probe (`host-free-floor.ts`) puts it beside the host pool's alloc/free cycle.
 *
 * The module, byte by byte below, is this text:
 *
 * ```wat
 * (module
 *   (import "m" "mem" (memory 1))
 *   (func (export "or") (param $at i32) (param $n i32) (result i32)
 *     (local $acc v128) (local $end i32)
 *     ;; end: the byte after the last whole step of sixteen slots
 *     (local.set $end (i32.add (local.get $at) (i32.shl (i32.and (local.get $n) (i32.const -16)) (i32.const 2))))
 *     (block $done (loop $step
 *       (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
 *       (local.set $acc (v128.or (local.get $acc)
 *         (v128.or (v128.or (v128.load offset=0 (local.get $at)) (v128.load offset=16 (local.get $at)))
 *                  (v128.or (v128.load offset=32 (local.get $at)) (v128.load offset=48 (local.get $at))))))
 *       (local.set $at (i32.add (local.get $at) (i32.const 64)))
 *       (br $step)))
 *     ;; the four lanes folded into one
 *     (i32.or (i32.or (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
 *             (i32.or (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc))))))
 * ```
 */

const kPage = 65_536;

// The part of the WebAssembly API used here (Node's typings declare the namespace without it).
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

// prettier-ignore
const kBody = [
  0x02, 0x01, 0x7b, 0x01, 0x7f, // locals: $acc v128, $end i32
  0x20, 0x00, 0x20, 0x01, 0x41, 0x70, 0x71, 0x41, 0x02, 0x74, 0x6a, 0x21, 0x03, // $end = $at + (($n & -16) << 2)
  0x02, 0x40, 0x03, 0x40, // block $done, loop $step
  0x20, 0x00, 0x20, 0x03, 0x4f, 0x0d, 0x01, // br_if $done ($at >=u $end)
  0x20, 0x02, // $acc
  0x20, 0x00, 0xfd, 0x00, 0x04, 0x00, 0x20, 0x00, 0xfd, 0x00, 0x04, 0x10, 0xfd, 0x50, // load 0 | load 16
  0x20, 0x00, 0xfd, 0x00, 0x04, 0x20, 0x20, 0x00, 0xfd, 0x00, 0x04, 0x30, 0xfd, 0x50, // load 32 | load 48
  0xfd, 0x50, 0xfd, 0x50, 0x21, 0x02, // $acc |= both
  0x20, 0x00, 0x41, 0xc0, 0x00, 0x6a, 0x21, 0x00, // $at += 64
  0x0c, 0x00, 0x0b, 0x0b, // br $step, end loop, end block
  0x20, 0x02, 0xfd, 0x1b, 0x00, 0x20, 0x02, 0xfd, 0x1b, 0x01, 0x72, // lane 0 | lane 1
  0x20, 0x02, 0xfd, 0x1b, 0x02, 0x20, 0x02, 0xfd, 0x1b, 0x03, 0x72, 0x72, // | lane 2 | lane 3
  0x0b,
];

/** A section: id, byte length, bytes (every section here is under 128 bytes, so the length is one byte). */
const section = (id: number, bytes: readonly number[]): number[] => [id, bytes.length, ...bytes];

const kModule = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]), // type: (i32, i32) -> i32
  ...section(2, [0x01, 0x01, 0x6d, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00, 0x01]), // import m.mem, memory min 1
  ...section(3, [0x01, 0x00]), // one function of type 0
  ...section(7, [0x01, 0x02, 0x6f, 0x72, 0x00, 0x00]), // export "or" = function 0
  ...section(10, [0x01, kBody.length, ...kBody]), // its body
]);

/**
 * Chunks of slots copied into a WebAssembly memory, read whole by {@link ReadPass.readAll}.
 * The copies are made untimed ({@link ReadPass.load}); what is timed is the reading alone.
 */
export class ReadPass {
  private readonly orSlots: (at: number, n: number) => number;
  private readonly slots: Int32Array;
  /** Chunk `c` is `slots[starts[c], starts[c] + lengths[c])`; each starts on a 64-byte line. */
  private readonly starts: Int32Array;
  private readonly lengths: Int32Array;

  /** @param chunks - the slots to read, as the calls that would be checked give them. */
  constructor(chunks: readonly Int32Array[]) {
    let words = 0;
    for (const chunk of chunks) words += (chunk.length + 15) & ~15;
    const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil((4 * words) / kPage)) });
    const instance = new wasm.Instance(new wasm.Module(kModule), { m: { mem: memory } });
    this.orSlots = instance.exports['or'] as (at: number, n: number) => number;
    this.slots = new Int32Array(memory.buffer);
    this.starts = new Int32Array(chunks.length);
    this.lengths = new Int32Array(chunks.length);
    let at = 0;
    chunks.forEach((chunk, c) => {
      this.slots.set(chunk, at);
      this.starts[c] = at;
      this.lengths[c] = chunk.length;
      at += (chunk.length + 15) & ~15;
    });
  }

  /**
   * Reads every slot of every chunk once, a call per chunk (as a check runs once per free): the
   * module takes each chunk's whole steps of sixteen, JavaScript the last few slots.
   *
   * @returns the OR of all the slots (so that nothing read can be optimized away; a test compares it).
   */
  readAll(): number {
    const { slots, starts, lengths } = this;
    let acc = 0;
    for (let c = 0; c < starts.length; c++) {
      const start = starts[c] as number;
      const n = lengths[c] as number;
      acc |= this.orSlots(4 * start, n);
      for (let i = start + (n & ~15); i < start + n; i++) acc |= slots[i] as number;
    }
    return acc;
  }
}
