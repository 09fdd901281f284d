/** The fixed seed of a run's schedule: the same seed gives the same case and variant orders. */
export const kSeedDefault = 0x6b76_6675;

/**
 * A small seeded generator (mulberry32): the round schedule and the benches' drawn state must
 * come out the same for the same seed, so nothing here reads `Math.random`.
 *
 * @param seed - any integer; it is reduced to 32 bits.
 * @returns a function giving uniform numbers in `[0, 1)`.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Shuffles `items` in place (Fisher–Yates) with the given generator.
 *
 * @returns `items`, for chaining.
 */
export function shuffleInPlace<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const held = items[i] as T;
    items[i] = items[j] as T;
    items[j] = held;
  }
  return items;
}
