/**
 * A broken law seen by the oracle (never by the implementation's own checks). `rule` is a stable
 * short name used in failure signatures; the message names the pages and values involved.
 * `contractRule`, where the throw site knows it, is the CONTRACT.md rule the law belongs to (`A12`).
 */
export class LedgerViolation extends Error {
  readonly code = 'KVFUZZ_LEDGER_VIOLATION';

  constructor(
    readonly rule: string,
    message: string,
    readonly contractRule: string | null = null,
  ) {
    super(`[${rule}] ${message}`);
    this.name = 'LedgerViolation';
  }
}
