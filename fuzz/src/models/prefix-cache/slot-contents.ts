/** What KV each slot holds, as the model knows it: the content hash last written there. */
export interface ContentBySlot {
  get(slot: number): number | undefined;
  set(slot: number, hash: number): unknown;
}

/**
 * {@link ContentBySlot} over a pool's slots, one typed-array lane per slot (a write or a read is
 * O(1) and allocates nothing); a slot outside the pool, which only a broken implementation names,
 * is kept aside so it reads back exactly as written.
 */
export class SlotContents implements ContentBySlot {
  // hash[slot]: the content hash last written to slot; NaN when nothing was written.
  private readonly hash: Float64Array;
  private readonly outside = new Map<number, number>();

  /** @param slotCount - slots of the pool, page 0 included (`(numPages + 1) × pageSize`). */
  constructor(slotCount: number) {
    this.hash = new Float64Array(slotCount).fill(Number.NaN);
  }

  get(slot: number): number | undefined {
    if (!(slot >= 0 && slot < this.hash.length && Number.isInteger(slot))) return this.outside.get(slot);
    const h = this.hash[slot] as number;
    return Number.isNaN(h) ? undefined : h;
  }

  set(slot: number, hash: number): this {
    if (slot >= 0 && slot < this.hash.length && Number.isInteger(slot)) this.hash[slot] = hash;
    else this.outside.set(slot, hash);
    return this;
  }
}
