/** Shapes the statistics share. */

/** A centre and its two-sided interval, all as ratios (unitless). */
export interface RatioInterval {
  readonly ratio: number;
  readonly ciLow: number;
  readonly ciHigh: number;
}
