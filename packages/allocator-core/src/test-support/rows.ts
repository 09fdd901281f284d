/**
 * Request rows for tests: row position `i` → slot. A row keeps its page structure when
 * `row[i] % pageSize == i % pageSize` and positions `j*pageSize .. j*pageSize + pageSize − 1` lie
 * in one page.
 */

/** The row of `length` positions laid on `pages` (one page per `pageSize` positions). */
export function rowOnPages(pages: readonly number[], length: number, pageSize: number): number[] {
  const row: number[] = [];
  for (let pos = 0; pos < length; pos++) row.push((pages[Math.floor(pos / pageSize)] as number) * pageSize + (pos % pageSize));
  return row;
}

/** The first position where `row` breaks its page structure, described; `null` when it holds. */
export function rowStructureBreak(row: ArrayLike<number>, pageSize: number): string | null {
  for (let pos = 0; pos < row.length; pos++) {
    const slot = row[pos] as number;
    if (slot % pageSize !== pos % pageSize) return `position ${pos} holds slot ${slot}: offset ${slot % pageSize} ≠ ${pos % pageSize}`;
    const blockStart = pos - (pos % pageSize);
    const page = Math.floor((row[blockStart] as number) / pageSize);
    if (Math.floor(slot / pageSize) !== page) return `position ${pos} holds slot ${slot}, outside page ${page} of position ${blockStart}`;
  }
  return null;
}

/** The distinct pages of `slots`, in first-seen order. */
export function pagesOfSlots(slots: ArrayLike<number>, pageSize: number): number[] {
  const pages: number[] = [];
  for (let i = 0; i < slots.length; i++) {
    const page = Math.floor((slots[i] as number) / pageSize);
    if (!pages.includes(page)) pages.push(page);
  }
  return pages;
}

/** The slots of `pages`, page after page. */
export function slotsOfPages(pages: readonly number[], pageSize: number): number[] {
  return pages.flatMap((page) => Array.from({ length: pageSize }, (_, offset) => page * pageSize + offset));
}

/** `[first, first + 1, …, last]`. */
export function range(first: number, last: number): number[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

/** A deterministic permutation of `items` (mulberry32 driven Fisher–Yates), for drawn seeds. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = items.slice();
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
