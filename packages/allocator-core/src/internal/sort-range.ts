/**
 * Sorts `a[lo, hi)` ascending in place without allocating (heapsort; insertion sort for short
 * runs), after one pass that finds it sorted already: a free's pages come back in the order they
 * were handed out, ascending from the free list's front, and a heapsort of sorted pages is not
 * free in either mode. Typed-array `sort` would need a `subarray` view per call.
 *
 * @internal
 */
export function sortRange(a: Int32Array, lo: number, hi: number): void {
  // A free's pages usually come back in the order they were handed out, ascending: one pass tells.
  let sortedTo = lo + 1;
  while (sortedTo < hi && (a[sortedTo - 1] as number) <= (a[sortedTo] as number)) sortedTo++;
  if (sortedTo >= hi) return;
  const n = hi - lo;
  if (n <= 16) {
    for (let i = sortedTo; i < hi; i++) {
      const v = a[i] as number;
      let j = i - 1;
      while (j >= lo && (a[j] as number) > v) {
        a[j + 1] = a[j] as number;
        j--;
      }
      a[j + 1] = v;
    }
    return;
  }
  for (let start = (n >> 1) - 1; start >= 0; start--) siftDown(a, lo, start, n);
  for (let end = n - 1; end > 0; end--) {
    const top = a[lo] as number;
    a[lo] = a[lo + end] as number;
    a[lo + end] = top;
    siftDown(a, lo, 0, end);
  }
}

function siftDown(a: Int32Array, lo: number, root: number, n: number): void {
  let parent = root;
  const v = a[lo + parent] as number;
  for (;;) {
    let child = 2 * parent + 1;
    if (child >= n) break;
    if (child + 1 < n && (a[lo + child + 1] as number) > (a[lo + child] as number)) child++;
    if ((a[lo + child] as number) <= v) break;
    a[lo + parent] = a[lo + child] as number;
    parent = child;
  }
  a[lo + parent] = v;
}
