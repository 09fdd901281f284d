/**
 * One holder of pages, kept by page: a request row or the result of a plain `alloc`. The row page
 * structure (`row[i] % pageSize == i % pageSize`, one page per page block) is checked when slots
 * arrive, so a row is its block pages and its length: position `pos` holds slot
 * `pages[pos / pageSize] × pageSize + pos % pageSize`. Only contiguous rows can grow (extend, decode).
 */
export interface Holding {
  readonly id: number;
  /** pages[b]: the page of row positions `[b × pageSize, (b + 1) × pageSize)`, or −1 once a partial free gave it back. */
  pages: number[];
  /** Positions in the row, `[0, sizeTokens)`; the last block may be partly filled. */
  sizeTokens: number;
  /** Blocks whose page is still held (`pages[b] >= 0`). */
  heldBlocks: number;
  /** False once a random subset of its pages was given back: the row has holes. */
  growable: boolean;
}

/** A new, empty growable row. */
export function emptyHolding(id: number): Holding {
  return { id, pages: [], sizeTokens: 0, heldBlocks: 0, growable: true };
}

export function cloneHolding(h: Holding): Holding {
  return { id: h.id, pages: h.pages.slice(), sizeTokens: h.sizeTokens, heldBlocks: h.heldBlocks, growable: h.growable };
}

/** The slot at row position `pos` of a contiguous row. */
export function slotAt(h: Holding, pos: number, pageSize: number): number {
  return (h.pages[Math.floor(pos / pageSize)] as number) * pageSize + (pos % pageSize);
}

/** The row's last slot, or −1 for an empty row (what `lastLoc` says). */
export function lastSlotOf(h: Holding, pageSize: number): number {
  return h.sizeTokens === 0 ? -1 : slotAt(h, h.sizeTokens - 1, pageSize);
}

/** The slots of row positions `[posStart, posEnd)` that are still held, in row order: a fresh array the caller may scribble over. */
export function slotsOf(h: Holding, posStart: number, posEnd: number, pageSize: number): Int32Array {
  const blockEnd = Math.ceil(posEnd / pageSize);
  let count = 0;
  for (let b = Math.floor(posStart / pageSize); b < blockEnd; b++) {
    if ((h.pages[b] as number) >= 0) count += Math.min(posEnd, (b + 1) * pageSize) - Math.max(posStart, b * pageSize);
  }
  const out = new Int32Array(count);
  let k = 0;
  for (let b = Math.floor(posStart / pageSize); b < blockEnd; b++) {
    const page = h.pages[b] as number;
    if (page < 0) continue;
    const end = Math.min(posEnd, (b + 1) * pageSize);
    const base = (page - b) * pageSize;
    for (let pos = Math.max(posStart, b * pageSize); pos < end; pos++) out[k++] = base + pos;
  }
  return out;
}

/** The pages the row still holds, in row order (distinct: the ledger handed each out once). */
export function heldPagesOf(h: Holding, blockStart = 0): number[] {
  const pages: number[] = [];
  for (let b = blockStart; b < h.pages.length; b++) if ((h.pages[b] as number) >= 0) pages.push(h.pages[b] as number);
  return pages;
}

/** A contiguous row as a bad call reads it: its length, a slot, and fresh slot arrays. */
export interface RowView {
  readonly length: number;
  at(pos: number): number;
  slots(posStart: number, posEnd: number): Int32Array;
}

/** A row read through {@link RowView}; `null` reads as the empty row. */
export function rowView(h: Holding | null, pageSize: number): RowView {
  return {
    length: h?.sizeTokens ?? 0,
    at: (pos) => (h === null ? -1 : slotAt(h, pos, pageSize)),
    slots: (posStart, posEnd) => (h === null ? new Int32Array(0) : slotsOf(h, posStart, posEnd, pageSize)),
  };
}
