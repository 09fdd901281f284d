import type { AllocatorProvider } from '@kvfuzz/allocator-core';
import type { HostPoolProvider } from '@kvfuzz/host-pool';
import { formatHostContractFailure, validateHostPool } from '../models/host-contract/host-contract-model.js';
import { formatAllocatorFailure, runAllocatorModel } from '../models/allocator/run-allocator-model.js';
import type { CampaignOptions, ModelRunReport } from '../models/run-model.js';
import type { ProviderFault } from '../provider-fault.js';

/** What validation concluded. */
export type Verdict = 'pass' | 'violation' | 'provider-fault';

/** A validation's outcome: the verdict, the campaign's report, and the failure as text. */
export interface ValidationReport {
  /** The provider's name as printed. */
  readonly provider: string;
  readonly mode: 'contract' | 'exact';
  readonly verdict: Verdict;
  readonly report: ModelRunReport<unknown>;
  /** The failure as text (empty on a pass): the counterexample of a violation, the fault's message of a provider fault. */
  readonly text: string;
}

/** How a validation names and judges its provider. */
export interface ValidationContext {
  /** The provider's name as printed (made inert by the caller). @defaultValue the provider's `name` */
  readonly label?: string;
  /**
   * The provider's fault, read once the campaign is over: a process provider's bridge state. A
   * provider fault is judged from this alone — never from the name of an error a run threw, which
   * a provider could choose. @defaultValue none (an in-process provider cannot fault)
   */
  readonly fault?: () => ProviderFault | null;
}

function verdictOf(report: ModelRunReport<unknown>, fault: ProviderFault | null): Verdict {
  if (fault !== null) return 'provider-fault';
  return report.failed ? 'violation' : 'pass';
}

/**
 * Drives the allocator model against a provider — random geometries with checks on and off, bad
 * input the contract says must be rejected, callers scribbling over their arrays — with the
 * ledger as the oracle (and the reference call by call in exact mode).
 */
export function validateProvider(provider: AllocatorProvider, mode: 'contract' | 'exact', options: CampaignOptions, context: ValidationContext = {}): ValidationReport {
  const label = context.label ?? provider.name;
  const report = runAllocatorModel({ ...options, provider, mode });
  const fault = context.fault?.() ?? null;
  const verdict = verdictOf(report, fault);
  const text = verdict === 'provider-fault' ? (fault as ProviderFault).message : report.failed ? formatAllocatorFailure(report, label) : '';
  return { provider: label, mode, verdict, report: report as ModelRunReport<unknown>, text };
}

/** The same for a host pool provider, driven by the host pool contract model. */
export function validateHostPoolProvider(provider: HostPoolProvider, mode: 'contract' | 'exact', options: CampaignOptions, context: ValidationContext = {}): ValidationReport {
  const label = context.label ?? provider.name;
  const report = validateHostPool(provider, mode, options);
  const fault = context.fault?.() ?? null;
  const verdict = verdictOf(report, fault);
  const text = verdict === 'provider-fault' ? (fault as ProviderFault).message : report.failed ? formatHostContractFailure(report, label) : '';
  return { provider: label, mode, verdict, report, text };
}
