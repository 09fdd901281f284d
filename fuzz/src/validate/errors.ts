import { inertLine } from '../text/inert-text.js';

/** Characters of a provider's own error text kept in a rejection's message. */
const kRejectionTextCharsMax = 300;

/**
 * A provider's rejection of a call over the protocol (`{"ok":false,"error":"…"}`). The name is
 * always `ProviderRejection`, whatever the provider's text says: a provider cannot dress its
 * rejection up as one of the validator's own errors. Its text is kept in the message, made inert.
 * Expected where the contract says a call must be rejected; anywhere else, a valid call was refused.
 */
export class ProviderRejection extends Error {
  readonly code = 'KVFUZZ_PROVIDER_REJECTION';
  /** The rule a rejection that escapes the model is reported under. */
  readonly rule = 'rejected-valid-call';

  /**
   * @param op - the request the provider rejected.
   * @param error - the provider's `error` field, as it came.
   */
  constructor(op: string, error: unknown) {
    super(`the provider rejected ${op}: ${typeof error === 'string' ? inertLine(error, kRejectionTextCharsMax) : `(no error text: ${inertLine(JSON.stringify(error) ?? 'undefined', 60)})`}`);
    this.name = 'ProviderRejection';
  }
}
