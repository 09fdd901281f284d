import type fc from 'fast-check';

/** A command family and how often a run draws it (0 switches it off for the run). */
export interface Weighted<T> {
  readonly arbitrary: fc.Arbitrary<T>;
  readonly weight: number;
}

/**
 * The list `fc.commands` draws from, each family repeated by its weight, so the run's mix decides
 * how often it comes up (STYLE 16).
 */
export function weightedArbitraries<T>(weighted: readonly Weighted<T>[]): fc.Arbitrary<T>[] {
  return weighted.filter((w) => w.weight > 0).flatMap((w) => Array.from({ length: w.weight }, () => w.arbitrary));
}
