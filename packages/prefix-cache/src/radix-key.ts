/**
 * The key the radix tree is indexed by: token ids plus an optional namespace (`extraKey`, e.g. a
 * LoRA id or a cache salt). Keys of different namespaces never share a tree node.
 *
 * @packageDocumentation
 */

/** Token ids of a sequence and the namespace they live in (the engine's `RadixKey`). */
export interface RadixKey {
  /** Token ids, position by position (tokens, not slots). */
  readonly tokens: ArrayLike<number>;
  /**
   * Namespace of the key; `null`, `undefined` and absent all mean "no namespace", which is a
   * namespace of its own (distinct from every string, the empty string included).
   * @defaultValue null
   */
  readonly extraKey?: string | null;
}

/**
 * The tokens `[tokenStart, tokenEnd)` of `key` in the same namespace (the engine's slicing keeps
 * `extra_key`, so a sliced key still matches only its own namespace).
 *
 * @param key - the key to slice.
 * @param tokenStart - first token position kept (tokens).
 * @param tokenEnd - one past the last token position kept (tokens); clamped to the key length.
 * @returns a key whose tokens are a copy of the slice.
 */
export function sliceRadixKey(key: RadixKey, tokenStart: number, tokenEnd: number = key.tokens.length): RadixKey {
  return { tokens: Array.prototype.slice.call(key.tokens, tokenStart, tokenEnd) as number[], extraKey: key.extraKey ?? null };
}
