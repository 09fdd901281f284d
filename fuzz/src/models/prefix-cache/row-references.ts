/**
 * Which pages the live requests' rows referenced when each request was last checked. Rows change
 * only when a command works on their request, so a page given back while this index still counts
 * a referrer is a use after free; the check after a command then reads only the pages it gave back
 * and the requests it touched, not every row.
 */
export class RowReferences {
  // referrers[p]: how many live requests' rows reference page p.
  private readonly referrers: Int32Array;
  private readonly pagesOf = new Map<number, number[]>();

  constructor(
    private readonly pageSize: number,
    numPages: number,
  ) {
    this.referrers = new Int32Array(numPages + 1);
  }

  /**
   * Records the pages of row positions `[0, allocated)` (one per page block) as request `id`'s,
   * replacing what it referenced before. The row must already have passed the request check, so
   * every block's first slot names a page of the pool.
   */
  set(id: number, row: ArrayLike<number>, allocated: number): void {
    this.drop(id);
    const pages: number[] = [];
    for (let blockStart = 0; blockStart < allocated; blockStart += this.pageSize) {
      const page = Math.floor((row[blockStart] as number) / this.pageSize);
      pages.push(page);
      this.referrers[page] = (this.referrers[page] as number) + 1;
    }
    this.pagesOf.set(id, pages);
  }

  /** The request is no longer live: its row references nothing. */
  drop(id: number): void {
    const pages = this.pagesOf.get(id);
    if (pages === undefined) return;
    for (const page of pages) this.referrers[page] = (this.referrers[page] as number) - 1;
    this.pagesOf.delete(id);
  }

  /** Whether request `id`'s row referenced `page` when it was last checked. */
  references(id: number, page: number): boolean {
    return this.pagesOf.get(id)?.includes(page) ?? false;
  }

  referrersOf(page: number): number {
    return this.referrers[page] ?? 0;
  }

  /** Every request gone at once (the caches were cleared). */
  clear(): void {
    this.referrers.fill(0);
    this.pagesOf.clear();
  }
}
