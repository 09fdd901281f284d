/**
 * Deterministic draws for bench state: every bench builds the same requests in every process and
 * every round, so the two variants time exactly the same work.
 */
import { seededRandom } from '../stats/seeded-random.js';

/** Draws integers for one bench's state, from a seed the bench names. */
export class Draw {
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  /** Uniform in `[lo, hi]`. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  /** Log-uniform in `[lo, hi]` (request lengths span orders of magnitude). */
  logInt(lo: number, hi: number): number {
    return Math.min(hi, Math.floor(Math.exp(Math.log(lo) + this.random() * (Math.log(hi + 1) - Math.log(lo)))));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.random() < p;
  }

  /** `0 … n − 1` in a random order. */
  permutation(n: number): Int32Array {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      const held = out[i] as number;
      out[i] = out[j] as number;
      out[j] = held;
    }
    return out;
  }
}
