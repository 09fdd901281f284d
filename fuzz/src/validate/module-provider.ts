import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AllocatorProvider } from '@kvfuzz/allocator-core';
import { ProviderFault } from '../provider-fault.js';

/** Module extensions a provider may have (TypeScript loads through the CLI's loader). */
const kModuleExtensions = ['.js', '.mjs', '.ts', '.mts'];

/**
 * Loads an ES module whose default export is `{ name, create(config) }`.
 *
 * @param path - relative to `baseDir`, or absolute.
 * @throws ProviderFault when the file is missing, has another extension, fails to load, or has no such default export.
 */
export async function loadModuleProvider(path: string, baseDir: string): Promise<AllocatorProvider> {
  return (await loadModuleExport(path, baseDir)) as AllocatorProvider;
}

/** The same check for any `{ name, create }` provider (allocators and host pools alike). */
export async function loadModuleExport(path: string, baseDir: string): Promise<{ readonly name: string; create(config: never): unknown }> {
  const file = isAbsolute(path) ? path : resolve(baseDir, path);
  if (!kModuleExtensions.some((ext) => file.endsWith(ext))) throw new ProviderFault(`${path}: a provider module must end in ${kModuleExtensions.join(', ')}`);
  if (!existsSync(file)) throw new ProviderFault(`${path}: no such file (looked at ${file})`);
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new ProviderFault(`${path} failed to load: ${(error as Error).message}`);
  }
  const provider = loaded.default as Partial<AllocatorProvider> | undefined;
  if (typeof provider !== 'object' || provider === null || typeof provider.name !== 'string' || typeof provider.create !== 'function') {
    throw new ProviderFault(`${path}: the default export must be { name: string, create(config) }`);
  }
  return provider as { readonly name: string; create(config: never): unknown };
}
