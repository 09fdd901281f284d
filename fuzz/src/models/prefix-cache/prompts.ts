/**
 * Token ids for the lifecycle model. Prompts start with one of a few shared prefixes, so radix
 * hits, node splits and duplicate frees are common; everything after the shared part is unique to
 * its request. Token content depends only on (prefix, position), so two requests with the same
 * prefix agree for as long as both are in it.
 */

/** Shared prefixes drawn from: few, so requests collide. */
export const kSharedPrefixes = 3;

export function sharedToken(prefix: number, pos: number): number {
  return (prefix + 1) * 1_000_003 + pos;
}

export function uniqueToken(requestId: number, pos: number): number {
  return -((requestId + 1) * 1_000_003 + pos);
}

/**
 * Rolling hash of a token prefix in an extra-key namespace: the identity of a position's KV. Kept
 * to 30 bits, V8's small-integer range, so an array of hashes stays an array of small integers.
 */
export function extendHash(previous: number, token: number): number {
  return (Math.imul(previous ^ 0x5bd1e995, 31) + token) & 0x3fffffff;
}

export function seedHash(extraKey: string | null): number {
  let h = 17;
  for (const ch of extraKey ?? '') h = extendHash(h, ch.charCodeAt(0));
  return h;
}

/**
 * A prompt's token ids and the content hash of each position: `shared` tokens of shared prefix
 * `prefix`, then tokens of request `requestId`'s own, `promptLen` in all.
 */
export function promptOf(prefix: number, shared: number, promptLen: number, requestId: number, hashSeed: number): { readonly tokens: number[]; readonly prefixHash: number[] } {
  const tokens = new Array<number>(promptLen);
  const prefixHash = new Array<number>(promptLen);
  let h = hashSeed;
  for (let pos = 0; pos < promptLen; pos++) {
    const token = pos < shared ? sharedToken(prefix, pos) : uniqueToken(requestId, pos);
    tokens[pos] = token;
    prefixHash[pos] = h = extendHash(h, token);
  }
  return { tokens, prefixHash };
}
