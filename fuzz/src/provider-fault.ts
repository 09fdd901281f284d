/**
 * The implementation under test could not be talked to: it could not be loaded, broke the
 * protocol, hung past the per-call timeout, or crashed. Not a contract violation — the validator
 * exits 2 — and never mistaken for the rejection of a bad call. Only the validator's process
 * bridge raises it; a provider's own error is never one, whatever its name.
 */
export class ProviderFault extends Error {
  readonly code = 'KVFUZZ_PROVIDER_FAULT';

  constructor(message: string) {
    super(message);
    this.name = 'ProviderFault';
  }
}

/** Whether `error` is the validator's own {@link ProviderFault} (by class, never by name). */
export function isProviderFault(error: unknown): error is ProviderFault {
  return error instanceof ProviderFault;
}
