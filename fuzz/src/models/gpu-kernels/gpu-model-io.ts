import { emptyHolding, type Holding } from '../allocator/holding.js';
import { LedgerViolation } from '../../ledger/ledger-violation.js';
import type { OpLabel } from '../../ledger/op-label.js';
import type { GpuKernelsModel, GpuKernelsReal } from './gpu-model-state.js';

/** One request of a batch: a live row (`pick`) or a new one (`null`), grown by `tokens`. */
export interface BatchEntry {
  readonly pick: number | null;
  readonly tokens: number;
}

/** A resolved batch: distinct holdings (new ones not yet live) and their growth. */
export interface ResolvedRequests {
  readonly holdings: Holding[];
  readonly isNew: boolean[];
  readonly tokens: number[];
}

/**
 * Resolves picks modulo the live set to distinct rows; a pick that repeats a row already in the
 * batch, or finds nothing live, opens a new row instead, so generation stays valid while shrinking.
 */
export function resolveRequests(m: GpuKernelsModel, entries: readonly BatchEntry[]): ResolvedRequests {
  const holdings: Holding[] = [];
  const isNew: boolean[] = [];
  for (const e of entries) {
    let h = e.pick === null || m.live.length === 0 ? null : (m.live[e.pick % m.live.length] as Holding);
    if (h !== null && holdings.includes(h)) h = null;
    isNew.push(h === null);
    holdings.push(h ?? emptyHolding(m.nextId++));
  }
  return { holdings, isNew, tokens: entries.map((e) => e.tokens) };
}

/** The free list the CPU allocator hands pages out from, front first (a copy the caller may overwrite). */
export function freeListOf(r: GpuKernelsReal): Int32Array {
  return r.allocator.inspect().free;
}

/** Every page the ledger says is held, for the GPU page state of a batch free. */
export function heldPages(m: GpuKernelsModel): number[] {
  const held: number[] = [];
  for (let page = 1; page <= m.ledger.numPages; page++) if (m.ledger.holderOf(page) >= 0) held.push(page);
  return held;
}

/**
 * The check after every command, O(1): the CPU allocator's availableSize against the ledger
 * (conservation). The lock-step comparison of each call already ran inside the command.
 */
export function afterGpuCommand(m: GpuKernelsModel, r: GpuKernelsReal, op: OpLabel): void {
  m.executed++;
  checkGpuConservation(m, r, op);
}

/**
 * The checks of a quiet point (the drain), O(pages held): conservation, every live row's pages
 * held by it (disjointness), and the reference's own structure check.
 */
export function verifyGpuQuiet(m: GpuKernelsModel, r: GpuKernelsReal, op: OpLabel): void {
  checkGpuConservation(m, r, op);
  for (const h of m.live) {
    for (const page of h.pages) {
      if (m.ledger.holderOf(page) !== h.id) throw new LedgerViolation('model', `#${h.id} holds page ${page} but the ledger says ${m.ledger.holderOf(page)}`);
    }
  }
  r.allocator.verifyInvariants();
}

function checkGpuConservation(m: GpuKernelsModel, r: GpuKernelsReal, op: OpLabel): void {
  const expectAvail = m.ledger.freePageCount * m.pageSize;
  const avail = r.allocator.availableSize();
  if (avail !== expectAvail) {
    throw new LedgerViolation('available-size', `after ${op}: availableSize() = ${avail}, but the ledger has ${m.ledger.freePageCount} free pages × ${m.pageSize} = ${expectAvail}`);
  }
}
