/**
 * Each bench file's child as one bundled ES module, `bench/out/children/<package>.<op>.mjs`: the
 * child runner and the bench file with the workspace packages it imports (their `source`
 * entries), transpiled by esbuild once per run, as tsx would transpile them. A run starts a fresh
 * pair of children per case per round, so a child must start without transpiling, or start-up
 * would be most of the run.
 * mitata stays external, resolved from `bench/node_modules`, so the runner and the bench file
 * share one copy.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { addressOf, benchFilePath } from './bench-files.js';

/**
 * Where the bundles go (under the gitignored `bench/out`). Another folder must also lie under
 * `bench/`, where mitata resolves.
 */
export const kChildBundleDir = fileURLToPath(new URL('../../out/children/', import.meta.url));
const kHarnessDir = fileURLToPath(new URL('./', import.meta.url));

/** The bundle a child of `file` (`<package>/<op>.bench.ts`) runs. */
export function childBundlePath(file: string, dir: string = kChildBundleDir): string {
  const { package: pkg, op } = addressOf(file);
  return join(dir, `${pkg}.${op}.mjs`);
}

/** The entry of a bundle: the bench file's pairs handed to the runner. */
function entrySource(file: string): string {
  return [`import pairs from ${JSON.stringify(benchFilePath(file))};`, `import { runChild } from './run-child.js';`, 'await runChild(process.argv[2], pairs);', ''].join('\n');
}

/**
 * Writes the bundle of every file in `files` to `dir`.
 *
 * @throws Error naming the file when esbuild cannot bundle it (its messages follow).
 */
export async function bundleChildren(files: readonly string[], dir: string = kChildBundleDir): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    try {
      await build({
        stdin: { contents: entrySource(file), resolveDir: kHarnessDir, sourcefile: `child-entry-${addressOf(file).op}.ts`, loader: 'ts' },
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: `node${process.versions.node}`,
        conditions: ['source'],
        external: ['mitata', 'webgpu'],
        outfile: childBundlePath(file, dir),
        logLevel: 'silent',
      });
    } catch (error) {
      throw new Error(`bundling the bench child of ${file} failed: ${(error as Error).message}`);
    }
  }
}
