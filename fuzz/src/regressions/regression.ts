/** One stored failure (`fuzz/regressions/<target>/<signature>.json`), format `kvfuzz-regression/1`. */
export interface Regression {
  readonly kvfuzz: 'kvfuzz-regression/1';
  readonly target: string;
  readonly signature: string;
  /** The fast-check seed of the batch that failed, and the shrunk path: `fc.check(…, { seed, path })` replays it. */
  readonly seed: number;
  readonly path: string;
  /** The campaign it came from: `pnpm fuzz --seed campaign.seed --shard …` reaches the same batch. */
  readonly campaign: { readonly seed: number; readonly batch: number; readonly shard: string };
  readonly geometry: unknown;
  /** The shrunk command list, as code (the model's `program.ts` builders). */
  readonly program: readonly string[];
  readonly errorName: string;
  readonly rule: string;
  readonly message: string;
  readonly foundAt: string;
  readonly versions: Readonly<Record<string, string>>;
}
