import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A program that serves the provider protocol on its stdin/stdout, as the supervisor starts it. */
export interface ProviderLaunch {
  /** The executable. */
  readonly file: string;
  readonly args: readonly string[];
  /** The heap limit a module host runs under (MiB), for the out-of-memory message; null for a `--cmd` program. */
  readonly memoryMib: number | null;
}

/** A `--cmd` command line, run by `/bin/sh -c` (in the provider's process group, like everything it starts). */
export function commandLaunch(command: string): ProviderLaunch {
  return { file: '/bin/sh', args: ['-c', command], memoryMib: null };
}

/** tsx's loader, so that the module host imports TypeScript providers. */
function tsxLoader(): string {
  try {
    return import.meta.resolve('tsx');
  } catch {
    // A runtime without import.meta.resolve (a test runner's module graph) resolves the same way.
    return createRequire(import.meta.url).resolve('tsx');
  }
}

/**
 * The module host (module-host.mjs) for a provider module: the same Node.js, tsx's loader so `.ts`
 * providers load, the `source` condition so workspace packages resolve to their sources, and a
 * heap limit so running out of memory is the provider's own crash, reported as such.
 *
 * @param moduleFile - the provider module, an absolute path.
 * @param memoryMib - the host's heap limit (MiB).
 */
export function moduleHostLaunch(moduleFile: string, memoryMib: number): ProviderLaunch {
  const host = fileURLToPath(new URL('./module-host.mjs', import.meta.url));
  return {
    file: process.execPath,
    args: ['--import', tsxLoader(), '--conditions=source', `--max-old-space-size=${memoryMib}`, host, moduleFile],
    memoryMib,
  };
}
