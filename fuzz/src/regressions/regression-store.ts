import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { BadInput } from '../bad-input.js';
import type { ModelRunReport } from '../models/run-model.js';
import { failureSignature } from './failure-signature.js';
import { kMessageCharsMax, kNameCharsMax, kRegressionFormat, type Regression } from './regression.js';
import { checkRegression } from './replay-regression.js';

/** The store inside the repository: `fuzz/regressions`. */
export const kRegressionDir = fileURLToPath(new URL('../../regressions', import.meta.url));

/** The variable that points the store elsewhere (tests use a temporary store). */
export const kRegressionDirVariable = 'KVFUZZ_REGRESSION_DIR';

/** The store in use: `KVFUZZ_REGRESSION_DIR` when set, else `fuzz/regressions`. */
export function regressionDir(): string {
  const override = process.env[kRegressionDirVariable];
  return override === undefined || override === '' ? kRegressionDir : resolve(override);
}

function packageVersion(relativePath: string): string {
  try {
    return (JSON.parse(readFileSync(fileURLToPath(new URL(relativePath, import.meta.url)), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function versions(): Record<string, string> {
  return {
    '@kvfuzz/allocator-core': packageVersion('../../../packages/allocator-core/package.json'),
    '@kvfuzz/prefix-cache': packageVersion('../../../packages/prefix-cache/package.json'),
    '@kvfuzz/host-pool': packageVersion('../../../packages/host-pool/package.json'),
    '@kvfuzz/hicache': packageVersion('../../../packages/hicache/package.json'),
    '@kvfuzz/gpu-kernels': packageVersion('../../../packages/gpu-kernels/package.json'),
    '@kvfuzz/fuzz': packageVersion('../../package.json'),
    'fast-check': fc.__version,
    node: process.version,
  };
}

/** Text cut to a stored field's bound, with a note of what was left out. */
function cut(text: string, charsMax: number): string {
  const note = `… (${text.length} characters in all)`;
  return text.length <= charsMax ? text : `${text.slice(0, charsMax - note.length)}${note}`;
}

/** Whether a failure with this signature is already in the store. */
export function isStored(target: string, rule: string, message: string, dir: string = regressionDir()): boolean {
  return existsSync(join(dir, target, `${failureSignature(target, rule, message)}.json`));
}

/**
 * Stores a failure of the reference found by a campaign: one JSON file, its program as data (and
 * printed for people). Nothing else is written: the store's one Vitest file replays every JSON
 * file in it. A failure whose signature is already stored is not written again.
 *
 * @returns the JSON file's path and whether it is new.
 * @throws Error when the failure would not load back (a model whose commands carry no data).
 */
export function storeRegression(
  target: string,
  report: ModelRunReport<unknown>,
  campaign: Regression['campaign'],
  dir: string = regressionDir(),
): { readonly file: string; readonly created: boolean; readonly signature: string } {
  const f = report.failure;
  if (f === null) throw new Error('storeRegression: the report has no failure');
  if (f.commands.length !== f.program.length) throw new Error(`storeRegression: the ${target} failure's commands carry no data, so it cannot be stored`);
  const signature = failureSignature(target, f.rule, f.message);
  const targetDir = join(dir, target);
  const file = join(targetDir, `${signature}.json`);
  if (existsSync(file)) return { file, created: false, signature };
  const regression: Regression = {
    kvfuzz: kRegressionFormat,
    target,
    signature,
    seed: report.seed,
    path: f.path,
    campaign,
    geometry: f.geometry,
    commands: f.commands,
    program: f.program,
    errorName: cut(f.errorName, kNameCharsMax),
    rule: cut(f.rule, kNameCharsMax),
    message: cut(f.message, kMessageCharsMax),
    foundAt: new Date().toISOString(),
    versions: versions(),
  };
  // The store holds only what loads: check the record the way a replay will, through JSON.
  try {
    checkRegression(JSON.parse(JSON.stringify(regression)), file);
  } catch (error) {
    if (error instanceof BadInput) throw new Error(`storeRegression: the failure would not load back: ${error.message}`);
    throw error;
  }
  mkdirSync(targetDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(regression, null, 2)}\n`);
  return { file, created: true, signature };
}

/**
 * Every JSON file of a store, sorted: the files in each target's folder, and any misplaced at the
 * top, so that a file in the wrong place still fails to replay instead of being skipped.
 */
export function regressionFiles(dir: string = regressionDir()): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.endsWith('.json')) files.push(join(dir, entry.name));
    else if (entry.isDirectory()) {
      for (const inner of readdirSync(join(dir, entry.name))) if (inner.endsWith('.json')) files.push(join(dir, entry.name, inner));
    }
  }
  return files.sort();
}
