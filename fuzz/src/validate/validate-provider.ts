import type { AllocatorProvider } from '@kvfuzz/allocator-core';
import type { HostPoolProvider } from '@kvfuzz/host-pool';
import { formatHostContractFailure, validateHostPool } from '../models/host-contract/host-contract-model.js';
import { formatAllocatorFailure, runAllocatorModel } from '../models/allocator/run-allocator-model.js';
import type { AllocatorGeometry } from '../models/allocator/geometry.js';
import type { CampaignOptions, ModelRunReport } from '../models/run-model.js';

/** What validation concluded. */
export type Verdict = 'pass' | 'violation' | 'provider-fault';

export interface ValidationReport {
  readonly provider: string;
  readonly mode: 'contract' | 'exact';
  readonly verdict: Verdict;
  readonly report: ModelRunReport<unknown>;
  /** The failure as text (empty on a pass). */
  readonly text: string;
}

/**
 * Drives the allocator model against a provider — random geometries with checks on and off, bad
 * input the contract says must be rejected, callers scribbling over their arrays — with the
 * ledger as the oracle (and the reference call by call in exact mode).
 */
export function validateProvider(provider: AllocatorProvider, mode: 'contract' | 'exact', options: CampaignOptions): ValidationReport {
  const report = runAllocatorModel({ ...options, provider, mode });
  const verdict: Verdict = !report.failed ? 'pass' : report.failure?.errorName === 'ProviderFault' ? 'provider-fault' : 'violation';
  return { provider: provider.name, mode, verdict, report: report as ModelRunReport<unknown>, text: report.failed ? formatAllocatorFailure(report, provider.name) : '' };
}

/** The same for a host pool provider, driven by the host pool contract model. */
export function validateHostPoolProvider(provider: HostPoolProvider, mode: 'contract' | 'exact', options: CampaignOptions): ValidationReport {
  const report = validateHostPool(provider, mode, options);
  const verdict: Verdict = !report.failed ? 'pass' : report.failure?.errorName === 'ProviderFault' ? 'provider-fault' : 'violation';
  return { provider: provider.name, mode, verdict, report, text: report.failed ? formatHostContractFailure(report, provider.name) : '' };
}
