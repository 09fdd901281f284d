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

/** Rolling hash of a token prefix in an extra-key namespace: the identity of a position's KV. */
export function extendHash(previous: number, token: number): number {
  return (Math.imul(previous ^ 0x5bd1e995, 31) + token) | 0;
}

export function seedHash(extraKey: string | null): number {
  let h = 17;
  for (const ch of extraKey ?? '') h = extendHash(h, ch.charCodeAt(0));
  return h;
}
