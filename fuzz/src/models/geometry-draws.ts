import fc from 'fast-check';

/**
 * Draws every model's geometry shares: a field the caller fixed is not drawn, pool sizes mix
 * tiny (every allocation contends) with roomy, and extend sizes hit each part of the extend layout.
 */

/** `value` when the caller fixed it, else a draw from `arbitrary`. */
export function fixedOr<T>(value: T | undefined, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return value === undefined ? arbitrary : fc.constant(value);
}

/** Pool sizes in pages: 1–4 (weight 2), 5–32 (weight 3), 33–`poolPagesMax` (weight 1). */
export function poolPagesArbitrary(poolPagesMax: number): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 2 },
    { arbitrary: fc.integer({ min: 5, max: 32 }), weight: 3 },
    { arbitrary: fc.integer({ min: 33, max: poolPagesMax }), weight: 1 },
  );
}

/** Extend sizes that hit each part: nothing, inside the old page, whole pages, and everything mixed. */
export function extendTokensArbitrary(pageSize: number): fc.Arbitrary<number> {
  return fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: Math.max(1, pageSize - 1) }),
    fc.integer({ min: 1, max: 3 }).map((k) => k * pageSize),
    fc.integer({ min: 1, max: 4 * pageSize }),
  );
}
