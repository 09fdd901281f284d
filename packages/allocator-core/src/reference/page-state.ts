import { kPageFree, kPageHeld, kPageQueued, kPageReserved } from '../internal/snapshot.js';

/**
 * What one page is, in the plain reference: on the free list, staged for a sorted merge
 * (`needSort`), handed out, given back inside the open free group, or page 0.
 *
 * @internal
 */
export type PageState = 'free' | 'staged' | 'held' | 'queued' | 'reserved';

/** A page state as snapshots report it: a staged page is a free page kept aside. */
export function snapshotCodeOf(state: PageState): number {
  switch (state) {
    case 'free':
    case 'staged':
      return kPageFree;
    case 'held':
      return kPageHeld;
    case 'queued':
      return kPageQueued;
    case 'reserved':
      return kPageReserved;
  }
}
