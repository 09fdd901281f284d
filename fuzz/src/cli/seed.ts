import { UsageError } from './usage-error.js';

/** The largest seed a CLI accepts: any integer a JSON number holds exactly (CI run ids fit). */
export const kSeedMax = Number.MAX_SAFE_INTEGER;

/**
 * Parses a `--seed` value: a decimal integer in `[0, kSeedMax]`, nothing else (no sign, exponent,
 * blank or fraction), so a seed is never silently turned into another.
 *
 * @param source - how to name the value in the error (`--seed`, `GITHUB_RUN_ID`).
 * @throws UsageError naming the value and the range.
 */
export function parseSeed(raw: string, source = '--seed'): number {
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw new UsageError(`${source} ${JSON.stringify(raw)} is not an integer in [0, ${kSeedMax}]`);
  return value;
}

/** A seed for a run that was given none (printed, so the run can be repeated). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x80000000);
}

/**
 * The 32-bit fast-check seed of a CLI seed: seeds below 2^31 are their own; larger ones are folded
 * (both halves mixed), so two seeds a user can tell apart do not quietly become the same run.
 */
export function fastCheckSeed(seed: number): number {
  if (seed < 0x80000000) return seed;
  const high = Math.floor(seed / 0x100000000);
  const low = seed >>> 0;
  let h = Math.imul(high ^ 0x27d4eb2f, 0x165667b1) ^ low;
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) | 0;
}
