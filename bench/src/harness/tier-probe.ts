/**
 * Whether a function runs TurboFan code yet, asked of V8 itself: `%GetOptimizationStatus`, which
 * needs `--allow-natives-syntax` (a bench child has it, see spawn-child.ts). The flag lets the
 * `%` call parse; it changes nothing V8 compiles.
 *
 * Why a child asks: a slow call reaches its final compiled code only after a few hundred calls,
 * past any fixed warm-up, and slices timed before then measure code that the two variants compile
 * differently (bench/README.md, "How a run works" 3).
 */

/**
 * Keeps `f` out of V8's optimizing compiler (`%NeverOptimizeFunction`), where `%` syntax is
 * allowed; returns whether it could. The warm-up loop is kept so because, optimized, it would
 * inline the timed function, which then never gets optimized code of its own to report.
 */
export function keepUnoptimized(f: unknown): boolean {
  try {
    (new Function('f', '%NeverOptimizeFunction(f);') as (f: unknown) => void)(f);
    return true;
  } catch {
    return false;
  }
}

/** V8's `OptimizationStatus::kTurboFanned` bit (v8/src/runtime/runtime.h; V8 11 in Node 20). */
const kTurboFanned = 1 << 6;
/** `kIsFunction`: set for every function; a status without it means the probe misreads V8. */
const kIsFunction = 1 << 0;

export type TurboFanProbe = (f: unknown) => boolean;

/** The probe, or null where `%` syntax is not allowed (no flag) or the answer does not look like V8's. */
export function turboFanProbe(): TurboFanProbe | null {
  let status: (f: unknown) => unknown;
  try {
    status = new Function('f', 'return %GetOptimizationStatus(f);') as (f: unknown) => unknown;
  } catch {
    return null;
  }
  const probe = status(() => 0);
  if (typeof probe !== 'number' || (probe & kIsFunction) === 0) return null;
  return (f) => ((status(f) as number) & kTurboFanned) !== 0;
}
