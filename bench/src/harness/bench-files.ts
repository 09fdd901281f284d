/**
 * Every bench file, as `<package>/<op>.bench.ts` under `bench/src`. A child process imports one of
 * them; the orchestrator imports them all to list and filter their cases.
 */
import { fileURLToPath } from 'node:url';
import { expandName, type BenchArgs, type BenchPair } from './bench-pair.js';

/** The bench files, in the order `--list` shows them. */
export const kBenchFiles: readonly string[] = [
  'allocator-core/alloc-free.bench.ts',
  'allocator-core/alloc-extend.bench.ts',
  'allocator-core/alloc-decode.bench.ts',
  'allocator-core/free-segments.bench.ts',
  'prefix-cache/finish.bench.ts',
  'host-pool/alloc-free.bench.ts',
  'host-pool/kv-copy.bench.ts',
];

/** One case: one point of one pair of one file. */
export interface BenchCase {
  /** The address `package:op:expanded name`, e.g. `allocator-core:alloc-extend:allocExtend+free 64 8×64`. */
  readonly name: string;
  readonly package: string;
  readonly op: string;
  /** Path under `bench/src`. */
  readonly file: string;
  readonly pair: BenchPair;
  readonly args: BenchArgs;
  /** Index of the pair in its file and of the point in the pair's full sweep: how a child finds the case. */
  readonly pairIndex: number;
  readonly pointIndex: number;
}

/** Absolute path of a bench file. */
export function benchFilePath(file: string): string {
  return fileURLToPath(new URL(`../${file}`, import.meta.url));
}

/** The `package` and `op` of `<package>/<op>.bench.ts`. */
export function addressOf(file: string): { readonly package: string; readonly op: string } {
  const m = /^([^/]+)\/([^/]+)\.bench\.ts$/.exec(file);
  if (m === null) throw new Error(`bench file ${file} is not <package>/<op>.bench.ts`);
  return { package: m[1] as string, op: m[2] as string };
}

/** The pairs a bench file default-exports. */
export async function loadPairs(file: string): Promise<readonly BenchPair[]> {
  const module = (await import(benchFilePath(file))) as { default?: readonly BenchPair[] };
  if (!Array.isArray(module.default)) throw new Error(`bench file ${file} does not default-export an array of benchPair(...)`);
  return module.default;
}

/** Every case of one file: the full sweep, or the quick points. */
export async function casesOfFile(file: string, quick: boolean): Promise<BenchCase[]> {
  const { package: pkg, op } = addressOf(file);
  const pairs = await loadPairs(file);
  const cases: BenchCase[] = [];
  pairs.forEach((pair, pairIndex) => {
    const quickNames = new Set(pair.pointsQuick.map((p) => expandName(pair.name, p)));
    pair.points.forEach((args, pointIndex) => {
      const local = expandName(pair.name, args);
      if (quick && !quickNames.has(local)) return;
      cases.push({ name: `${pkg}:${op}:${local}`, package: pkg, op, file, pair, args, pairIndex, pointIndex });
    });
  });
  return cases;
}

/** Every case of every file. */
export async function allCases(quick: boolean): Promise<BenchCase[]> {
  const out: BenchCase[] = [];
  for (const file of kBenchFiles) out.push(...(await casesOfFile(file, quick)));
  return out;
}

/**
 * Whether a case name matches a `--filter` query: a case-insensitive substring, or a pattern with
 * `*` wildcards matched against the whole name.
 */
export function matchesFilter(name: string, query: string): boolean {
  const q = query.toLowerCase();
  const n = name.toLowerCase();
  if (!q.includes('*')) return n.includes(q);
  const pattern = q.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${pattern}$`).test(n);
}
