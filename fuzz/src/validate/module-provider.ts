import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AllocatorProvider } from '@kvfuzz/allocator-core';
import { ProviderFault } from '../provider-fault.js';
import { describeThrown } from '../text/describe-thrown.js';

/** Module extensions a provider may have (TypeScript loads through tsx's loader). */
const kModuleExtensions = ['.js', '.mjs', '.ts', '.mts'];

/**
 * The absolute path of a provider module, checked before anything is started.
 *
 * @param path - relative to `baseDir`, or absolute.
 * @throws ProviderFault when the file has another extension, is missing, or is not a file.
 */
export function resolveModuleFile(path: string, baseDir: string): string {
  const file = isAbsolute(path) ? path : resolve(baseDir, path);
  if (!kModuleExtensions.some((ext) => file.endsWith(ext))) throw new ProviderFault(`${path}: a provider module must end in ${kModuleExtensions.join(', ')}`);
  if (!existsSync(file)) throw new ProviderFault(`${path}: no such file (looked at ${file})`);
  if (!statSync(file).isFile()) throw new ProviderFault(`${path} is not a file`);
  return file;
}

/**
 * Loads a provider module into this process, for tests that drive a planted bug directly (`pnpm
 * validate` runs modules in a child process instead: see module-host.mjs). The default export's
 * `name` and `create` are read once, defensively.
 *
 * @param path - relative to `baseDir`, or absolute.
 * @throws ProviderFault when the file is missing, has another extension, fails to load, or has no such default export.
 */
export async function loadModuleProvider(path: string, baseDir: string): Promise<AllocatorProvider> {
  return (await loadModuleExport(path, baseDir)) as AllocatorProvider;
}

/** The same for any `{ name, create }` provider (allocators and host pools alike). */
export async function loadModuleExport(path: string, baseDir: string): Promise<{ readonly name: string; create(config: never): unknown }> {
  const file = resolveModuleFile(path, baseDir);
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new ProviderFault(`${path} failed to load: ${describeThrown(error)}`);
  }
  const exported = loaded.default;
  const shape = `${path}: the default export must be { name: string, create(config) }`;
  if (exported === null || (typeof exported !== 'object' && typeof exported !== 'function')) throw new ProviderFault(shape);
  let name: unknown;
  let create: unknown;
  try {
    name = (exported as { name?: unknown }).name;
    create = (exported as { create?: unknown }).create;
  } catch (error) {
    throw new ProviderFault(`${shape}; reading it threw ${describeThrown(error)}`);
  }
  if (typeof name !== 'string' || typeof create !== 'function') throw new ProviderFault(shape);
  return { name, create: (config: never): unknown => Reflect.apply(create, exported, [config]) };
}
