/**
 * How a node is filed under its parent: namespace plus the first page of its tokens.
 *
 * @packageDocumentation
 */

/**
 * The children-map key of the tokens `[tokenStart, tokenStart + pageSize)` in namespace
 * `extraKey` (fewer tokens when the array ends first). At page size 1 that is the first token, as
 * in the engine. The namespace is length-prefixed and `null` has its own form, so no two
 * (namespace, page) pairs share a key: `null` never collides with `''`, nor `'a|1'` with `'a'`.
 *
 * @param extraKey - namespace of the tokens.
 * @param tokens - token ids (tokens).
 * @param tokenStart - position of the page's first token (tokens).
 * @param pageSize - tree page size (tokens).
 * @internal
 */
export function childKeyOf(extraKey: string | null, tokens: ArrayLike<number>, tokenStart: number, pageSize: number): string {
  const tokenEnd = Math.min(tokenStart + pageSize, tokens.length);
  let key = extraKey === null ? '-|' : `${extraKey.length}:${extraKey}|`;
  for (let i = tokenStart; i < tokenEnd; i++) key += i === tokenStart ? String(tokens[i]) : `,${String(tokens[i])}`;
  return key;
}
