/**
 * The snapshot `backupState` returns and `restoreState` takes, shared by the fast allocators and
 * the plain reference, so a snapshot of one restores into the other. It is a deep copy of the free
 * state; page states travel with it when checks are on.
 *
 * @internal
 */
import { StateError } from '../errors.js';

/** Page states, as snapshots and invariants report them (checks on). */
export const kPageFree = 0;
export const kPageHeld = 1;
/** Given back inside an open free group; released at `freeGroupEnd`. */
export const kPageQueued = 2;
/** Page 0: receives the padded tokens' dummy writes, never handed out, never given back. */
export const kPageReserved = 3;

/** A snapshot from `backupState`; opaque to callers. */
export interface AllocatorSnapshot {
  readonly kind: 'kvfuzz.allocator-state';
  readonly pageSize: number;
  readonly numPages: number;
  /** The free list, front first. */
  readonly free: Int32Array;
  /** The staged pages (`needSort`), in release order. */
  readonly staged: Int32Array;
  /** Checks on: every page's state (`kPageFree` … `kPageReserved`; staged pages read free). Checks off: null. */
  readonly pageState: Uint8Array | null;
}

/** The geometry a snapshot must match. */
export interface SnapshotGeometry {
  readonly pageSize: number;
  readonly numPages: number;
  readonly checks: boolean;
}

/** A frozen snapshot of the given lists (copied by the caller) and page states. */
export function makeSnapshot(g: SnapshotGeometry, free: Int32Array, staged: Int32Array, pageState: Uint8Array | null): AllocatorSnapshot {
  return Object.freeze({ kind: 'kvfuzz.allocator-state', pageSize: g.pageSize, numPages: g.numPages, free, staged, pageState });
}

/**
 * `state` as a snapshot of this geometry.
 *
 * @throws StateError when `state` is not a snapshot `backupState` returned, was taken at another
 *   page size or page count, or with the other checks setting.
 */
export function snapshotOf(state: unknown, g: SnapshotGeometry): AllocatorSnapshot {
  const s = state as Partial<AllocatorSnapshot> | null;
  if (typeof s !== 'object' || s === null || s.kind !== 'kvfuzz.allocator-state') {
    throw new StateError(`restoreState was given ${typeof state === 'object' ? 'an object' : String(state)} that backupState did not return`);
  }
  if (s.pageSize !== g.pageSize || s.numPages !== g.numPages) {
    throw new StateError(
      `restoreState: snapshot of pageSize ${String(s.pageSize)} × ${String(s.numPages)} pages does not fit pageSize ${g.pageSize} × ${g.numPages} pages`,
    );
  }
  if ((s.pageState === null) === g.checks) {
    throw new StateError(`restoreState: snapshot taken with checks ${s.pageState === null ? 'off' : 'on'} does not fit an allocator with checks ${g.checks ? 'on' : 'off'}`);
  }
  return s as AllocatorSnapshot;
}

/**
 * Checks on: a snapshot's page states must be what its lists make them (page 0 reserved, listed
 * pages free, the rest held). States are derived from the lists alone on restore, so a snapshot
 * that disagrees is refused here rather than met at a later free.
 *
 * @throws StateError naming the first page whose state disagrees.
 */
export function checkSnapshotStates(snapshot: AllocatorSnapshot): void {
  const { free, staged, numPages } = snapshot;
  const pageState = snapshot.pageState as Uint8Array;
  const listed = new Uint8Array(numPages + 1);
  for (const page of free) listed[page] = 1;
  for (const page of staged) listed[page] = 1;
  for (let page = 0; page <= numPages; page++) {
    const expect = page === 0 ? kPageReserved : listed[page] === 1 ? kPageFree : kPageHeld;
    if (pageState[page] !== expect) {
      throw new StateError(`restoreState: the snapshot marks page ${page} with state ${String(pageState[page])}, but its lists make it ${expect}`);
    }
  }
}
