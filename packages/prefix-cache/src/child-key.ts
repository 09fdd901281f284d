/**
 * How a node is filed under its parent: namespace plus the first page of its tokens.
 *
 * @packageDocumentation
 */

/** UTF-16 units handed to one `String.fromCharCode` call, far below any engine's argument limit. */
const kCharsPerCallMax = 4096;

// Scratch for packing one page of int32 tokens into UTF-16 units; grows to the largest page seen.
let scratchTokens = new Int32Array(64);
let scratchUnits = new Uint16Array(scratchTokens.buffer);

/** The plain form: tokens printed in decimal, comma-separated (any number, int32 or not). */
function printedPage(tokens: ArrayLike<number>, tokenStart: number, tokenEnd: number): string {
  let page = '';
  for (let i = tokenStart; i < tokenEnd; i++) page += i === tokenStart ? String(tokens[i]) : `,${String(tokens[i])}`;
  return page;
}

/**
 * The children-map key of the tokens `[tokenStart, tokenStart + pageSize)` in namespace
 * `extraKey` (fewer tokens when the array ends first). At page size 1 that is the first token, as
 * in the engine. The namespace is length-prefixed and `null` has its own form, so no two
 * (namespace, page) pairs share a key: `null` never collides with `''`, nor `'a|1'` with `'a'`.
 * A page of two or more int32 tokens is packed two UTF-16 units per token behind a `#` (printing
 * large pages in decimal dominated lookups); any other page is printed in decimal, which never
 * starts with `#`, so the two forms cannot collide either.
 *
 * @param extraKey - namespace of the tokens.
 * @param tokens - token ids (tokens).
 * @param tokenStart - position of the page's first token (tokens).
 * @param pageSize - tree page size (tokens).
 * @internal
 */
export function childKeyOf(extraKey: string | null, tokens: ArrayLike<number>, tokenStart: number, pageSize: number): string {
  const tokenEnd = Math.min(tokenStart + pageSize, tokens.length);
  const head = extraKey === null ? '-|' : `${extraKey.length}:${extraKey}|`;
  const tokenCount = tokenEnd - tokenStart;
  if (tokenCount < 2) return head + printedPage(tokens, tokenStart, tokenEnd);
  if (scratchTokens.length < tokenCount) {
    scratchTokens = new Int32Array(tokenCount);
    scratchUnits = new Uint16Array(scratchTokens.buffer);
  }
  for (let i = 0; i < tokenCount; i++) {
    const token = tokens[tokenStart + i] as number;
    if (token !== (token | 0)) return head + printedPage(tokens, tokenStart, tokenEnd);
    scratchTokens[i] = token;
  }
  let key = `${head}#`;
  const unitCount = 2 * tokenCount;
  for (let at = 0; at < unitCount; at += kCharsPerCallMax) {
    key += String.fromCharCode.apply(null, scratchUnits.subarray(at, Math.min(unitCount, at + kCharsPerCallMax)) as unknown as number[]);
  }
  return key;
}
