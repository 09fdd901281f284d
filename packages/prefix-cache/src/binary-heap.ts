/**
 * A binary min-heap over a comparator, for the eviction queue.
 *
 * @packageDocumentation
 */

/**
 * A binary min-heap: `pop` returns the smallest item under `compare`. Items equal under
 * `compare` leave in no particular order, so give it a total order (the eviction orders end with
 * the node id).
 *
 * @internal
 */
export class BinaryHeap<T> {
  // items[0, items.length) is a heap: compare(items[parent(i)], items[i]) <= 0 for every i > 0.
  private readonly items: T[] = [];

  /** @param compare - negative when the first argument comes out first. */
  constructor(private readonly compare: (a: T, b: T) => number) {}

  /** Items in the heap. */
  get size(): number {
    return this.items.length;
  }

  /** Adds `item`; O(log n). */
  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent] as T;
      if (this.compare(above, item) <= 0) break;
      items[i] = above;
      i = parent;
    }
    items[i] = item;
  }

  /** Removes and returns the smallest item, or `undefined` when empty; O(log n). */
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    const n = items.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const smaller = right < n && this.compare(items[right] as T, items[left] as T) < 0 ? right : left;
      const child = items[smaller] as T;
      if (this.compare(last, child) <= 0) break;
      items[i] = child;
      i = smaller;
    }
    items[i] = last;
    return top;
  }
}
