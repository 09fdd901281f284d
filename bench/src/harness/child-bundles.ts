/**
 * Each bench file's child as one bundled ES module, `bench/out/children/<package>.<op>.mjs`: the
 * child runner and the bench file with the workspace packages it imports (their `source`
 * entries), transpiled by esbuild once per run, as tsx would transpile them. A run starts a fresh
 * pair of children per case per round (isolation `case`), so a child must start without
 * transpiling, or start-up would be most of the run.
 * mitata stays external, resolved from `bench/node_modules`, so the runner and the bench file
 * share one copy.
 *
 * Layout `modules` (`bench/out/children/modules/`): the packages stay external too, so the child
 * imports them as an installed package is imported, one ES module per file from their tsc-built
 * `dist/`, which {@link prepareChildren} builds first.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { addressOf, benchFilePath } from './bench-files.js';
import type { Layout } from './measure-settings.js';

/**
 * Where the bundles go (under the gitignored `bench/out`). Another folder must also lie under
 * `bench/`, where mitata resolves.
 */
export const kChildBundleDir = fileURLToPath(new URL('../../out/children/', import.meta.url));
const kHarnessDir = fileURLToPath(new URL('./', import.meta.url));
const kRepoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Where a layout's bundles go: `modules` in a folder of its own, so the two never mix. */
export function childBundleDirFor(layout: Layout): string {
  return layout === 'bundle' ? kChildBundleDir : join(kChildBundleDir, 'modules');
}

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
 * Readies the children of `files` for a run in `layout`: the packages' `dist/` built first for
 * `modules`, then the bundles written to the layout's folder.
 *
 * @throws Error with the build's output when the packages do not build, or as {@link bundleChildren}.
 */
export async function prepareChildren(files: readonly string[], layout: Layout): Promise<void> {
  if (layout === 'modules') buildPackages();
  await bundleChildren(files, childBundleDirFor(layout), layout);
}

/** `pnpm -r --filter ./packages/* build` at the repository root (tsc; a few seconds). */
function buildPackages(): void {
  const result = spawnSync('pnpm', ['-r', '--filter', './packages/*', 'build'], { cwd: kRepoRoot, encoding: 'utf8' });
  if (result.status !== 0) {
    const why = result.error?.message ?? `exit ${String(result.status ?? result.signal)}`;
    throw new Error(`--layout modules: building the packages (pnpm -r --filter ./packages/* build) failed: ${why}\n${result.stdout ?? ''}${result.stderr ?? ''}`.trimEnd());
  }
}

/**
 * Writes the bundle of every file in `files`, in `layout` (`modules`: the packages external,
 * resolved to their `dist/`, which must be built).
 *
 * @throws Error naming the file when esbuild cannot bundle it (its messages follow).
 */
export async function bundleChildren(files: readonly string[], dir: string = kChildBundleDir, layout: Layout = 'bundle'): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    try {
      await build({
        stdin: { contents: entrySource(file), resolveDir: kHarnessDir, sourcefile: `child-entry-${addressOf(file).op}.ts`, loader: 'ts' },
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: `node${process.versions.node}`,
        conditions: layout === 'bundle' ? ['source'] : [],
        external: layout === 'bundle' ? ['mitata', 'webgpu'] : ['mitata', 'webgpu', '@kvfuzz/*'],
        outfile: childBundlePath(file, dir),
        logLevel: 'silent',
      });
    } catch (error) {
      throw new Error(`bundling the bench child of ${file} failed: ${(error as Error).message}`);
    }
  }
}
