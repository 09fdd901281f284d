import { createReferenceAllocator, referenceProvider, type AllocatorConfig, type AllocatorProvider } from '@kvfuzz/allocator-core';
import { LedgerViolation } from '../../ledger/ledger-violation.js';
import { PageLedger } from '../../ledger/page-ledger.js';
import { isProviderFault } from '../../provider-fault.js';
import type { AllocatorModel, AllocatorOptions, AllocatorReal } from './allocator-model-state.js';
import { contractChecked, withoutStacks } from './model-io.js';
import { formatProbe, pageSizeOf, sizeTokensOf, sizeTokensOfferedOf, type AllocatorGeometry, type ConfigProbe } from './geometry.js';

/** Does nothing with what it hears: a campaign outside a per-rule report counts no inputs. */
const ignoreFed = (): void => {};

export function newAllocatorModel(g: AllocatorGeometry, sizeRemainderAccepted = false, onFed: (rule: string) => void = ignoreFed): AllocatorModel {
  return {
    geometry: g,
    pageSize: pageSizeOf(g),
    ledger: new PageLedger(pageSizeOf(g), g.poolPages),
    live: [],
    nextId: 0,
    groupOpen: false,
    deferredBad: [],
    sizeRemainderAccepted,
    backup: null,
    executed: 0,
    onFed,
  };
}

/**
 * `create(config)`, or null when the provider refuses it. Only the provider's own throw is a
 * refusal: a fault of the process bridge, or a violation the validator raised reading the reply
 * (a wrong type), goes on up.
 */
function createOrRefused(provider: AllocatorProvider, config: AllocatorConfig): { readonly made: unknown } | null {
  try {
    return { made: withoutStacks(() => provider.create(config)) };
  } catch (error) {
    if (isProviderFault(error) || error instanceof LedgerViolation) throw error;
    return null;
  }
}

/**
 * Tries the geometry's probe, a configuration A2 says must be refused or A4 says may be: an
 * accepted A2 configuration is a violation; an accepted A4 one must report A1's geometry, and is
 * then dropped (over the protocol the run's `create` replaces it).
 *
 * @throws LedgerViolation `accepted-bad-input` (A2), or `geometry` (A1) for an accepted A4 probe.
 */
function tryConfigProbe(provider: AllocatorProvider, probe: ConfigProbe, g: AllocatorGeometry, onFed: (rule: string) => void): void {
  const op = formatProbe(probe);
  onFed(probe.rule);
  const config = { sizeTokens: probe.sizeTokens, kernelPageSize: probe.kernelPageSize, dcpSize: probe.dcpSize, needSort: g.needSort, checks: g.checks };
  const created = createOrRefused(provider, config);
  if (created === null) return;
  if (probe.rule === 'A2') throw new LedgerViolation('accepted-bad-input', `${op} must be refused, but the provider accepted it`, 'A2');
  try {
    contractChecked(created.made, config);
  } catch (error) {
    // An accepted A4 configuration whose geometry is wrong breaks A4 (which asks for A1's geometry), not A1.
    if (error instanceof LedgerViolation && error.rule === 'geometry') throw new LedgerViolation(error.rule, error.message.replace(/^\[geometry\] /, ''), 'A4');
    throw error;
  }
}

/**
 * The real side of a run: the provider's allocator, checked against the contract's types and the
 * configuration's geometry (see {@link contractChecked}), and the reference in exact mode. The
 * geometry's probe (A2/A4) is tried first. A size with a remainder (A3) is offered first; if the
 * provider refuses it, the floored size is created instead. The reference always gets the floored
 * size (it refuses the other).
 *
 * @throws LedgerViolation when a probe is answered against A2/A4, or what `create` returned is not
 *   an allocator of this geometry with every page free.
 */
export function newAllocatorReal(g: AllocatorGeometry, provider: AllocatorProvider, exact: boolean, onFed: (rule: string) => void = ignoreFed): AllocatorReal & { readonly sizeRemainderAccepted: boolean } {
  if (g.configProbe !== undefined && g.configProbe !== null) tryConfigProbe(provider, g.configProbe, g, onFed);
  const base = { kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: g.needSort, checks: g.checks };
  const floored = { ...base, sizeTokens: sizeTokensOf(g) };
  const offered = { ...base, sizeTokens: sizeTokensOfferedOf(g) };
  if (offered.sizeTokens !== floored.sizeTokens) onFed('A3');
  const withRemainder = offered.sizeTokens !== floored.sizeTokens ? createOrRefused(provider, offered) : null;
  const config = withRemainder === null ? floored : offered;
  const allocator = contractChecked(withRemainder === null ? provider.create(floored) : withRemainder.made, config);
  const availExpect = allocator.numPages * allocator.pageSize;
  if (allocator.availableSize() !== availExpect) {
    throw new LedgerViolation(
      'available-size',
      `create({ sizeTokens: ${config.sizeTokens}, … }) returned an allocator with availableSize() = ${allocator.availableSize()}, not numPages ${allocator.numPages} × pageSize ${allocator.pageSize} = ${availExpect}`,
      withRemainder === null ? 'A11' : 'A3',
    );
  }
  return {
    allocator,
    shadow: exact ? createReferenceAllocator(floored) : null,
    backupState: null,
    shadowBackupState: null,
    selfCheck: provider === referenceProvider,
    sizeRemainderAccepted: withRemainder !== null,
  };
}

/** A run's model and real side: the provider's allocator (after the geometry's probe), and an empty ledger. */
export function setupAllocator(g: AllocatorGeometry, o: AllocatorOptions): { model: AllocatorModel; real: AllocatorReal } {
  const onFed = o.scope.onFed ?? ignoreFed;
  const real = newAllocatorReal(g, o.provider, o.mode === 'exact', onFed);
  return { model: newAllocatorModel(g, real.sizeRemainderAccepted, onFed), real };
}
