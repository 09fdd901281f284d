import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

// Providers written in a project outside this workspace (PROTOCOL.md, "Providers outside this
// repository"): each lives in a fresh folder under the system's temporary folder.

const kRootDir = fileURLToPath(new URL('../..', import.meta.url));
/** The packages a provider project installs for `@kvfuzz/host-pool`, dependencies first. */
const kPackedPackages = ['allocator-core', 'host-pool'] as const;
/** The TypeScript the workspace type-checks with, standing in for the provider project's own. */
const kTsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** Long enough for dozens of runs against a correct provider. */
const kTimeSeconds = '1';
/** A fresh `npm install`, `pnpm pack` or `tsc` takes seconds; this bounds a stuck one. */
const kToolMsMax = 120_000;

/**
 * A provider project's compiler options: what `tsc --init` users pick for Node.js ESM, without the
 * Node.js types (which the project does not install here; the provider needs none).
 */
const kTsconfig = { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [], skipLibCheck: true } };

/** An allocator provider that imports the contract's types and an error class, nothing else of kvfuzz. */
const allocatorProvider = (name: string) => `import { DoubleFreeError, referenceProvider, type AllocatorConfig, type AllocatorProvider, type PageAllocator } from '@kvfuzz/allocator-core';

/** Which copy of the package this module got: the project's own (node_modules here) or kvfuzz's. */
const url: string = (import.meta as unknown as { resolve(specifier: string): string }).resolve('@kvfuzz/allocator-core');
const copy = url.includes('/kvfuzz-elsewhere-') ? 'own-copy' : 'workspace-copy';

const provider: AllocatorProvider = {
  name: \`${name}-\${copy}\`,
  create(config: AllocatorConfig): PageAllocator {
    const inner = referenceProvider.create(config);
    // The contract's errors are this package's classes: a provider may throw and test for them.
    const probe: DoubleFreeError = new DoubleFreeError([1]);
    if (!(probe instanceof Error) || probe.code !== 'KVFUZZ_DOUBLE_FREE') throw new Error('DoubleFreeError is not the contract\\'s');
    return inner;
  },
};
export default provider;
`;

/** The same without import.meta, for a CommonJS package (npm's default), where tsx compiles imports to require. */
const commonJsProvider = `import { DoubleFreeError, referenceProvider, type AllocatorConfig, type AllocatorProvider, type PageAllocator } from '@kvfuzz/allocator-core';

const provider: AllocatorProvider = {
  name: 'elsewhere-commonjs',
  create(config: AllocatorConfig): PageAllocator {
    if (new DoubleFreeError([1]).code !== 'KVFUZZ_DOUBLE_FREE') throw new Error('DoubleFreeError is not the contract\\'s');
    return referenceProvider.create(config);
  },
};
export default provider;
`;

/** A host pool provider importing `@kvfuzz/host-pool`'s reference, types and error. */
const hostPoolProvider = `import { HostDoubleFreeError, HostSlotPool, type HostPool, type HostPoolProvider, type HostSlotPoolConfig } from '@kvfuzz/host-pool';

const provider: HostPoolProvider = {
  name: 'elsewhere-host-pool',
  create(config: HostSlotPoolConfig): HostPool {
    if (!(new HostDoubleFreeError([1]) instanceof Error)) throw new Error('HostDoubleFreeError is not an Error');
    return new HostSlotPool(config);
  },
};
export default provider;
`;

/** A provider project: a fresh folder outside the repository, its package.json and files. */
function project(files: Readonly<Record<string, string>>, packageJson: object | null = { name: 'my-provider', private: true, type: 'module' }): string {
  const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-elsewhere-'));
  if (packageJson !== null) writeFileSync(join(dir, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Runs a tool to the end; fails the test with its output when it does not exit 0. */
function run(command: string, args: readonly string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: kToolMsMax, env: { ...process.env, npm_config_update_notifier: 'false' } });
  expect(r.status, `${command} ${args.join(' ')}\n${r.stdout}${r.stderr}${r.error?.message ?? ''}`).toBe(0);
  return r.stdout;
}

/**
 * `pnpm validate` on a provider, as from its own folder. NODE_PATH is cleared: `pnpm run` sets it
 * to the workspace's packages, which would hide a CommonJS provider's missing fallback.
 */
const validate = (file: string, ...args: string[]) => runCli('validate.ts', [file, '--time', kTimeSeconds, '--seed', '5', ...args], 120_000, { NODE_PATH: '' });

/** The newest modification time of a package's sources (milliseconds since the epoch). */
function sourcesModifiedMs(dir: string): number {
  const files = readdirSync(join(dir, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  return Math.max(...files.map((f) => statSync(join(dir, 'src', f)).mtimeMs));
}

/**
 * The packages' `dist/`, which packing and type-checking need: built (`pnpm build` does the same)
 * when missing or older than the sources, dependencies first — a packed copy carries `dist/` as it is.
 */
function ensureBuilt(): void {
  for (const name of kPackedPackages) {
    const dir = join(kRootDir, 'packages', name);
    const built = join(dir, 'dist', 'index.js');
    if (!existsSync(built) || statSync(built).mtimeMs < sourcesModifiedMs(dir)) run(process.execPath, [kTsc, '-p', 'tsconfig.build.json'], dir);
  }
}

describe('fuzz:cli,validate,elsewhere', () => {
  it('passes a TypeScript provider that imports the contract without installing it (ESM)', () => {
    const dir = project({ 'my-provider.ts': allocatorProvider('elsewhere-esm') });
    const r = validate(join(dir, 'my-provider.ts'));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^elsewhere-esm-workspace-copy: no violation — [1-9]\d* runs/m);
  });

  it('passes the same in a CommonJS package, where tsx turns the imports into require', () => {
    const dir = project({ 'my-provider.ts': commonJsProvider }, null);
    const r = validate(join(dir, 'my-provider.ts'));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^elsewhere-commonjs: no violation/m);
  });

  it('passes a host pool provider that imports @kvfuzz/host-pool without installing it (--pool host)', () => {
    const dir = project({ 'my-host-pool.ts': hostPoolProvider });
    const r = validate(join(dir, 'my-host-pool.ts'), '--pool', 'host');
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^elsewhere-host-pool: no violation/m);
  });

  it('still fails a provider that imports any other package it has not installed', () => {
    const dir = project({ 'my-provider.ts': "import '@kvfuzz/prefix-cache';\nexport default { name: 'x', create() { return null; } };\n" });
    const r = validate(join(dir, 'my-provider.ts'));
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/could not be loaded \(exit 2\) — the module threw while loading: .*Cannot find (package|module) '@kvfuzz\/prefix-cache'/);
  });

  it('type-checks and passes a provider depending on packed tarballs, and runs its own copy', () => {
    ensureBuilt();
    const packs = mkdtempSync(join(tmpdir(), 'kvfuzz-packs-'));
    for (const name of kPackedPackages) run('pnpm', ['pack', '--pack-destination', packs], join(kRootDir, 'packages', name));
    const tarballs = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
    expect(tarballs).toHaveLength(kPackedPackages.length);
    const dir = project({ 'my-provider.ts': allocatorProvider('elsewhere-packed'), 'my-host-pool.ts': hostPoolProvider, 'tsconfig.json': JSON.stringify(kTsconfig) });
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs.map((f) => join(packs, f))], dir);
    run(process.execPath, [kTsc, '-p', 'tsconfig.json'], dir);
    const r = validate(join(dir, 'my-provider.ts'));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^elsewhere-packed-own-copy: no violation/m);
    const host = validate(join(dir, 'my-host-pool.ts'), '--pool', 'host');
    expect(host.status, host.stdout + host.stderr).toBe(0);
  });

  it('type-checks and passes a provider depending on the packages by link (npm install FOLDER)', () => {
    ensureBuilt();
    const dir = project({ 'my-provider.ts': allocatorProvider('elsewhere-linked'), 'my-host-pool.ts': hostPoolProvider, 'tsconfig.json': JSON.stringify(kTsconfig) });
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', join(kRootDir, 'packages/allocator-core'), join(kRootDir, 'packages/host-pool')], dir);
    run(process.execPath, [kTsc, '-p', 'tsconfig.json'], dir);
    const r = validate(join(dir, 'my-provider.ts'));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    // A link resolves into the checkout: the module host's `source` condition picks its sources.
    expect(r.stdout).toMatch(/^elsewhere-linked-workspace-copy: no violation/m);
    const host = validate(join(dir, 'my-host-pool.ts'), '--pool', 'host');
    expect(host.status, host.stdout + host.stderr).toBe(0);
  });
});
