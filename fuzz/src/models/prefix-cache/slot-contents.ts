/** What KV each slot holds, as the model knows it: the content hash last written to the slot. */
export interface ContentBySlot {
  get(slot: number): number | undefined;
  set(slot: number, hash: number): unknown;
}

/** Slots per chunk: a run writes a few pages, so the table is made a chunk at a time. */
const kChunkSlots = 256;

/**
 * {@link ContentBySlot} over a pool's slots, one array entry per slot (a write or a read is O(1)
 * and allocates nothing once its chunk exists); a slot outside the pool, which only a broken
 * implementation names, is kept aside so it reads back exactly as written. Chunks are made on
 * first write, so building one for a large pool costs O(chunks), not O(slots). They are plain
 * arrays: a run makes many, and Node makes a small plain array much faster than a typed one.
 */
export class SlotContents implements ContentBySlot {
  private readonly slotCount: number;
  // chunks[c][i]: the content hash last written to slot c × kChunkSlots + i; NaN (or no chunk)
  // when nothing was written.
  private readonly chunks: (number[] | undefined)[];
  private readonly outside = new Map<number, number>();

  /** @param slotCount - slots of the pool, page 0 included (`(numPages + 1) × pageSize`). */
  constructor(slotCount: number) {
    this.slotCount = slotCount;
    this.chunks = new Array<number[] | undefined>(Math.ceil(slotCount / kChunkSlots)).fill(undefined);
  }

  get(slot: number): number | undefined {
    if (!(slot >= 0 && slot < this.slotCount && Number.isInteger(slot))) return this.outside.get(slot);
    const chunk = this.chunks[Math.floor(slot / kChunkSlots)];
    if (chunk === undefined) return undefined;
    const h = chunk[slot % kChunkSlots] as number;
    return Number.isNaN(h) ? undefined : h;
  }

  set(slot: number, hash: number): this {
    if (!(slot >= 0 && slot < this.slotCount && Number.isInteger(slot))) {
      this.outside.set(slot, hash);
      return this;
    }
    const c = Math.floor(slot / kChunkSlots);
    let chunk = this.chunks[c];
    if (chunk === undefined) {
      chunk = new Array<number>(kChunkSlots).fill(Number.NaN);
      this.chunks[c] = chunk;
    }
    chunk[slot % kChunkSlots] = hash;
    return this;
  }
}
