/**
 * A `backupState` snapshot a module host keeps on its side (PROTOCOL.md, "Module providers"): the
 * host holds the provider's own state object by handle and replies with a digest of it. The
 * digest is the only own property, so the model's before/after comparison of a rejected call
 * (`isDeepStrictEqual`, after a structured clone) compares the provider's states and never the
 * handles, which differ for every backup; the handle is private and goes back on `restoreState`.
 */
export class ProviderSnapshot {
  /** SHA-256 of the state's V8 serialization, taken at the backup. */
  readonly digest: string;
  readonly #wire: unknown;

  /**
   * @param wire - the `state` of the reply, sent back verbatim on restore.
   * @param digest - the reply's `digest`.
   */
  constructor(wire: unknown, digest: string) {
    this.digest = digest;
    this.#wire = wire;
  }

  /** What to send as `restoreState`'s `state`: a snapshot's handle, or any other value as it is. */
  static wireOf(state: unknown): unknown {
    return state instanceof ProviderSnapshot ? state.#wire : state;
  }
}
