import { z } from 'zod';
import { kSeedMax } from '../cli/seed.js';
import { kModels } from '../fuzz-targets.js';
import type { CommandData } from '../models/command-data.js';

/** The format this kvfuzz writes and reads. */
export const kRegressionFormat = 'kvfuzz-regression/2';

/** The format that stored programs as code; kvfuzz refuses it by name. */
export const kRegressionFormatCode = 'kvfuzz-regression/1';

/** Largest regression file read (bytes): a thousand commands and a long message fit many times over. */
export const kRegressionBytesMax = 4 * 1024 * 1024;

/** Most commands a stored program holds: far above the longest run any model draws (60 commands). */
export const kStoredCommandsMax = 1000;

/** Most arguments of one stored command: the builders take at most three. */
const kArgsPerCommandMax = 8;

/** Longest builder name: the builders' names are short identifiers. */
const kOpCharsMax = 64;

/** Longest shrink path: one step per shrink, far more than shrinking a 60-command run takes. */
export const kPathCharsMax = 65_536;

/** Longest error name or rule: both are short identifiers (`LedgerViolation`, `double-free`). */
export const kNameCharsMax = 200;

/** Longest message: a violation names pages and rows, and a plain error adds three stack lines. */
export const kMessageCharsMax = 65_536;

/** Longest `foundAt` and version string: an ISO date, a semver. */
const kStampCharsMax = 100;

/** Most entries in `versions`: the packages and tools a campaign records (eight today). */
const kVersionsMax = 32;

/** Longest printed command line kept for people (the line is never read back). */
const kProgramLineCharsMax = 10_000;

// Every run a model draws fits in a stored program.
for (const model of kModels) {
  if (model.commandsPerRunMax > kStoredCommandsMax) throw new Error(`the ${model.name} model draws ${model.commandsPerRunMax} commands per run, more than kStoredCommandsMax ${kStoredCommandsMax}`);
}

/** One stored failure (`fuzz/regressions/<target>/<signature>.json`), format `kvfuzz-regression/2`. */
export interface Regression {
  readonly kvfuzz: typeof kRegressionFormat;
  /** The fuzz target whose model found it (`allocator`, `prefix-cache`, `hicache`, `gpu-kernels`). */
  readonly target: string;
  /** The failure's identity and file name: the rule, readable, and a digest of the message's shape. */
  readonly signature: string;
  /** The fast-check seed of the batch that failed, and the shrunk path: `fc.check(…, { seed, path })` replays it. */
  readonly seed: number;
  readonly path: string;
  /** The campaign it came from: `pnpm fuzz --seed campaign.seed --shard …` reaches the same batch. */
  readonly campaign: { readonly seed: number; readonly batch: number; readonly shard: string };
  /** The run's geometry, checked on load against the target's geometry schema. */
  readonly geometry: unknown;
  /** The shrunk program as data: each command's builder and arguments, checked on load by the target's codec. */
  readonly commands: readonly CommandData[];
  /** The same program printed for people; ignored on load and never evaluated. */
  readonly program: readonly string[];
  readonly errorName: string;
  readonly rule: string;
  readonly message: string;
  readonly foundAt: string;
  readonly versions: Readonly<Record<string, string>>;
}

const kInt32 = z.int().min(-(2 ** 31)).max(2 ** 31 - 1);

/** A shard `I/N` with `I < N`. */
const shardSchema = z
  .string()
  .regex(/^\d{1,6}\/\d{1,6}$/, 'is not I/N')
  .refine((s) => {
    const [index, count] = s.split('/').map(Number) as [number, number];
    return index < count;
  }, 'is not I/N with I < N');

/**
 * The whole file but the target-specific parts: the geometry (checked by the target's schema)
 * and each command's arguments (checked by the target's codec).
 */
export const regressionSchema = z.strictObject({
  kvfuzz: z.literal(kRegressionFormat),
  target: z.string().max(kOpCharsMax),
  signature: z.string().regex(/^[a-z0-9-]{1,64}$/, 'is not 1 to 64 characters of a-z, 0-9 and -'),
  seed: kInt32,
  path: z.string().max(kPathCharsMax).regex(/^\d+(:\d+)*$/, 'is not a fast-check path (N:N:…)'),
  campaign: z.strictObject({ seed: z.int().min(0).max(kSeedMax), batch: z.int().min(0), shard: shardSchema }),
  geometry: z.unknown(),
  commands: z.array(z.strictObject({ op: z.string().max(kOpCharsMax), args: z.array(z.unknown()).max(kArgsPerCommandMax) })).max(kStoredCommandsMax),
  program: z.array(z.string().max(kProgramLineCharsMax)).max(kStoredCommandsMax),
  errorName: z.string().max(kNameCharsMax),
  rule: z.string().max(kNameCharsMax),
  message: z.string().max(kMessageCharsMax),
  foundAt: z.string().max(kStampCharsMax),
  versions: z
    .record(z.string().max(kStampCharsMax), z.string().max(kStampCharsMax))
    .refine((v) => Object.keys(v).length <= kVersionsMax, `has more than ${kVersionsMax} entries`),
});
