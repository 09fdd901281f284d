/**
 * How a bench file registers its benches: each bench is a checks-on / checks-off **pair** over the
 * same state builder, the checks-off variant being the baseline. The two variants never share a
 * process: the orchestrator runs each in its own child, so the JIT cannot carry feedback (inline
 * caches, inlining decisions, deopts) from one to the other.
 *
 * @packageDocumentation
 */

/** A swept parameter value; it is printed into the bench name in place of `$key`. */
export type ArgValue = number | string;

/** One point of a sweep: the parameters of one case. */
export type BenchArgs = Readonly<Record<string, ArgValue>>;

/**
 * What a setup returns: the timed function, built over state the setup made. `fn` runs the op and
 * hands its result to `do_not_optimize`. With `next`, each timed call gets a fresh parameter from
 * `next()`, which mitata calls before the timed loop (untimed), for ops that consume their input.
 */
export type TimedOp =
  | { readonly kind: 'fn'; readonly fn: () => void }
  | { readonly kind: 'param'; readonly next: () => unknown; readonly fn: (param: never) => void };

/** The two variants of every pair; `checks-off` is the baseline the ratio divides by. */
export type VariantId = 'checks-off' | 'checks-on';
export const kVariants: readonly { readonly id: VariantId; readonly checks: boolean; readonly baseline: boolean }[] = [
  { id: 'checks-off', checks: false, baseline: true },
  { id: 'checks-on', checks: true, baseline: false },
];
/** The variant every ratio divides by. */
export const kBaselineVariant: VariantId = 'checks-off';

/**
 * What a run hands every case's setup besides its point: the run's choices that are not swept.
 * Each child gets it in its `ChildStart`.
 */
export interface SetupContext {
  /** KV bytes per token of the model the host pool's copy cycle copies for (`--model`, `--kv-bytes-per-token`). */
  readonly kvBytesPerToken: number;
}

/** A pair as a bench file writes it. */
export interface BenchPairSpec<A extends BenchArgs> {
  /** Name with `$key` placeholders for the swept parameters, e.g. `free $dcp×$kernelPage`. */
  readonly name: string;
  /** Every point of the full sweep. */
  readonly points: readonly A[];
  /** The points `--quick` runs (a subset of `points`). */
  readonly pointsQuick: readonly A[];
  /**
   * Whether the pair's ratio gates: a gated ratio's verdict decides the exit status; an ungated
   * one is tracked (history, `bench:compare`) but informational.
   * @defaultValue true
   */
  readonly gated?: boolean;
  /**
   * Builds the state for one variant (untimed) and returns the timed op.
   *
   * @param args - one point of the sweep.
   * @param checks - the variant: in-line checks on or off, passed explicitly to every constructor.
   * @param context - the run's settings that are not swept.
   */
  readonly setup: (args: A, checks: boolean, context: SetupContext) => TimedOp;
}

/** A registered pair (the type parameter erased). */
export interface BenchPair {
  readonly name: string;
  readonly points: readonly BenchArgs[];
  readonly pointsQuick: readonly BenchArgs[];
  readonly baseline: VariantId;
  readonly gated: boolean;
  readonly setup: (args: BenchArgs, checks: boolean, context: SetupContext) => TimedOp;
}

/**
 * Registers a checks-on / checks-off pair with the checks-off variant as its baseline.
 *
 * @throws Error when a quick point is not one of the full points, or the sweep names a
 *   parameter the name does not show (two cases would print the same).
 */
export function benchPair<A extends BenchArgs>(spec: BenchPairSpec<A>): BenchPair {
  const keys = (spec.points[0] === undefined ? [] : Object.keys(spec.points[0])) as string[];
  for (const key of keys) {
    if (!spec.name.includes(`$${key}`)) throw new Error(`bench "${spec.name}": swept parameter ${key} does not appear as $${key} in the name`);
  }
  const full = new Set(spec.points.map((p) => expandName(spec.name, p)));
  for (const p of spec.pointsQuick) {
    if (!full.has(expandName(spec.name, p))) throw new Error(`bench "${spec.name}": quick point ${JSON.stringify(p)} is not a full point`);
  }
  return { name: spec.name, points: spec.points, pointsQuick: spec.pointsQuick, baseline: kBaselineVariant, gated: spec.gated ?? true, setup: spec.setup as BenchPair['setup'] };
}

/** The name with each `$key` replaced by its value (longest keys first, so `$dcp` never eats `$dcpSize`). */
export function expandName(name: string, args: BenchArgs): string {
  const keys = Object.keys(args).sort((a, b) => b.length - a.length);
  let out = name;
  for (const key of keys) out = out.replaceAll(`$${key}`, String(args[key]));
  return out;
}

/**
 * Every combination of the given sweeps, the first sweep varying slowest.
 *
 * @example crossProduct({ batch: [1, 64] }, kGeometries) // 2 × 3 points
 */
export function crossProduct<A extends BenchArgs, B extends BenchArgs>(a: readonly A[] | { readonly [K in keyof A]: readonly A[K][] }, b: readonly B[]): (A & B)[] {
  const left = Array.isArray(a) ? (a as readonly A[]) : pointsOf(a as { readonly [K in keyof A]: readonly A[K][] });
  return left.flatMap((x) => b.map((y) => ({ ...x, ...y })));
}

function pointsOf<A extends BenchArgs>(sweeps: { readonly [K in keyof A]: readonly A[K][] }): A[] {
  let points: Record<string, ArgValue>[] = [{}];
  for (const [key, values] of Object.entries(sweeps) as [string, readonly ArgValue[]][]) {
    points = points.flatMap((p) => values.map((v) => ({ ...p, [key]: v })));
  }
  return points as A[];
}
