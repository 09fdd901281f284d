import type { AllocatorProvider } from '@kvfuzz/allocator-core';
import type { HostPoolProvider } from '@kvfuzz/host-pool';
import { formatHostContractFailure, hostContractSpec, validateHostPool, type HostGeometry } from '../models/host-contract/host-contract-model.js';
import { decodeHostCommands } from '../models/host-contract/host-program.js';
import { decodeAllocatorCommands } from '../models/allocator/program.js';
import { formatAllocatorFailure, runAllocatorModel, runAllocatorProgram } from '../models/allocator/run-allocator-model.js';
import type { AllocatorGeometry } from '../models/allocator/geometry.js';
import { runProgram, type CampaignOptions, type ModelRunReport } from '../models/run-model.js';
import type { ReportScope } from '../contract/report-scope.js';
import { familiesOf } from '../contract/rule-families.js';
import type { ProviderFault } from '../provider-fault.js';
import { ruleVerdicts, type FamilyRun, type RuleVerdict } from './rule-report.js';
import { processProviderOf } from './process-provider.js';
import { replayTranscript, type ViolationTranscript } from './transcript.js';

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
  /**
   * A violation by a process provider: the lines exchanged while its shrunk program ran once
   * more, or a note why they are not shown. Null for a pass, a provider fault, or a provider that
   * runs in this process.
   */
  readonly transcript: ViolationTranscript | null;
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
export function validateProvider(provider: AllocatorProvider, mode: 'contract' | 'exact', options: CampaignOptions, context: ValidationContext = {}, scope: ReportScope = {}): ValidationReport {
  const label = context.label ?? provider.name;
  const report = runAllocatorModel({ ...options, provider, mode, scope });
  const fault = context.fault?.() ?? null;
  const verdict = verdictOf(report, fault);
  const text = verdict === 'provider-fault' ? (fault as ProviderFault).message : report.failed ? formatAllocatorFailure(report, label) : '';
  const process = processProviderOf(provider);
  const transcript =
    verdict === 'violation' && process !== null && report.failure !== null
      ? replayTranscript(process, report.failure, (f) => {
          const commands = decodeAllocatorCommands(f.commands);
          return () => runAllocatorProgram(f.geometry as AllocatorGeometry, commands, provider, mode === 'exact');
        })
      : null;
  return { provider: label, mode, verdict, report: report as ModelRunReport<unknown>, text, transcript };
}

/** The same for a host pool provider, driven by the host pool contract model. */
export function validateHostPoolProvider(provider: HostPoolProvider, mode: 'contract' | 'exact', options: CampaignOptions, context: ValidationContext = {}, scope: ReportScope = {}): ValidationReport {
  const label = context.label ?? provider.name;
  const report = validateHostPool(provider, mode, options, scope);
  const fault = context.fault?.() ?? null;
  const verdict = verdictOf(report, fault);
  const text = verdict === 'provider-fault' ? (fault as ProviderFault).message : report.failed ? formatHostContractFailure(report, label) : '';
  const process = processProviderOf(provider);
  const transcript =
    verdict === 'violation' && process !== null && report.failure !== null
      ? replayTranscript(process, report.failure, (f) => {
          const commands = decodeHostCommands(f.commands);
          return () => runProgram(hostContractSpec(provider, mode), f.geometry as HostGeometry, commands);
        })
      : null;
  return { provider: label, mode, verdict, report, text, transcript };
}

/** A per-rule report (`pnpm validate --report`): every family's run, and the verdict per rule. */
export interface RuleReport {
  readonly pool: 'allocator' | 'host';
  readonly mode: 'contract' | 'exact';
  readonly families: readonly FamilyRun[];
  readonly verdicts: readonly RuleVerdict[];
  /** The family whose run the provider broke off (a fault: exit 2), or null. */
  readonly fault: ValidationReport | null;
  readonly runs: number;
  readonly commands: number;
  readonly elapsedMs: number;
}

/**
 * Runs the valid traffic and each rule's own inputs (its family) apart, each for an equal share of
 * the budget, so one violation does not hide the others; stops at a provider fault.
 *
 * @param options - the whole report's budget (`timeLimitMs`), seed and progress callback.
 */
export function reportProvider(
  provider: { readonly pool: 'allocator'; readonly allocator: AllocatorProvider } | { readonly pool: 'host'; readonly host: HostPoolProvider },
  mode: 'contract' | 'exact',
  options: CampaignOptions & { readonly onFamily?: (family: string) => void },
  context: ValidationContext = {},
): RuleReport {
  const families = familiesOf(provider.pool);
  const share = (options.timeLimitMs ?? 30_000) / families.length;
  const runs: FamilyRun[] = [];
  let fault: ValidationReport | null = null;
  for (const family of families) {
    options.onFamily?.(family.name);
    const fed: Record<string, number> = {};
    const scope: ReportScope = { family: family.name, onFed: (rule) => void (fed[rule] = (fed[rule] ?? 0) + 1) };
    const familyOptions = { ...options, timeLimitMs: share };
    const result = provider.pool === 'host' ? validateHostPoolProvider(provider.host, mode, familyOptions, context, scope) : validateProvider(provider.allocator, mode, familyOptions, context, scope);
    if (result.verdict === 'provider-fault') {
      fault = result;
      break;
    }
    runs.push({ family, report: result.report, text: result.text, fed, transcript: result.transcript?.lines ?? null });
  }
  const total = (pick: (r: ModelRunReport<unknown>) => number): number => runs.reduce((n, r) => n + pick(r.report), 0);
  return {
    pool: provider.pool,
    mode,
    families: runs,
    verdicts: ruleVerdicts(provider.pool, mode, runs),
    fault,
    runs: total((r) => r.runs),
    commands: total((r) => r.commands),
    elapsedMs: total((r) => r.elapsedMs),
  };
}
