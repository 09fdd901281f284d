/**
 * The rate a campaign prints and writes for its commands.
 *
 * @packageDocumentation
 */

/** Commands (or runs) a second: whole from 100 up, three significant digits below, so a slow target never reads 0. */
export function perSecond(count: number, elapsedMs: number): number {
  const rate = count / Math.max(elapsedMs / 1000, 1e-3);
  return rate >= 100 ? Math.round(rate) : Number(rate.toPrecision(3));
}
