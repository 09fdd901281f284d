import type { AllocatorProvider, PageAllocator } from '@kvfuzz/allocator-core';
import type { ReportScope } from '../../contract/report-scope.js';
import type { LedgerSnapshot, PageLedger } from '../../ledger/page-ledger.js';
import type { AllocatorGeometry } from './geometry.js';
import { cloneHolding, type Holding } from './holding.js';

/** The model's side: what a correct allocator's caller knows. */
export interface AllocatorModel {
  readonly geometry: AllocatorGeometry;
  readonly pageSize: number;
  readonly ledger: PageLedger;
  live: Holding[];
  nextId: number;
  groupOpen: boolean;
  /**
   * Bad give-backs (A24) the implementation accepted inside the open free group instead of
   * refusing them at the call — the contract's other choice. The ledger did not record them; the
   * group's `freeGroupEnd` must then be refused with nothing changed, and the model gives back
   * nothing else in the group until then. Empty when there are none.
   */
  deferredBad: string[];
  /**
   * The implementation accepted a `sizeTokens` with a remainder (A3): a page past `numPages` handed
   * out then breaks A3, not only A6.
   */
  sizeRemainderAccepted: boolean;
  /** Commands run so far (for throughput statistics). */
  executed: number;
  /** Hears each bad input the model feeds, by its contract rule (a per-rule report counts them). */
  readonly onFed: (rule: string) => void;
  /** The last backup, with what the model knew then; null before any backup. */
  backup: { readonly ledger: LedgerSnapshot; readonly live: Holding[]; readonly nextId: number } | null;
}

/** The real side: the implementation under test, and the reference in exact mode. */
export interface AllocatorReal {
  readonly allocator: PageAllocator;
  /** Exact mode: the reference run in lock-step, compared call by call. */
  readonly shadow: PageAllocator | null;
  backupState: unknown;
  shadowBackupState: unknown;
  /**
   * Call the implementation's own `verifyInvariants()` at quiet points (a restore, the drain). Only for the
   * reference: the oracle must catch a planted bug without the implementation's help.
   */
  readonly selfCheck: boolean;
}

export function cloneLive(live: readonly Holding[]): Holding[] {
  return live.map(cloneHolding);
}

/** What a campaign against the allocator model runs: which implementation, and how strictly it is compared. */
export interface AllocatorOptions {
  /** The implementation under test (the reference, a planted bug, a provider being validated). */
  readonly provider: AllocatorProvider;
  /** `contract`: any page choice that keeps the contract; `exact`: also the reference's page ids and order. */
  readonly mode: 'contract' | 'exact';
  /** The part of the contract the campaign feeds (a per-rule report's family); everything when empty. */
  readonly scope: ReportScope;
}
