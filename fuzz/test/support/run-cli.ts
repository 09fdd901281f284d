import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const kFuzzDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs one of the harness CLIs (`src/cli/<script>`) the way `pnpm` does, from the fuzz folder.
 *
 * @param env - variables to set on top of this process's environment.
 */
export function runCli(script: string, args: readonly string[], timeoutMs = 120_000, env: Readonly<Record<string, string>> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=source', `src/cli/${script}`, ...args], { cwd: kFuzzDir, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
