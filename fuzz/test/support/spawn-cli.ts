import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const kFuzzDir = fileURLToPath(new URL('../..', import.meta.url));
/** The longest a CLI run may take before the test gives up on it (and kills it). */
const kRunMsMax = 120_000;

/** How a CLI run ended, and how long it took. */
export interface CliRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** From the spawn to the exit (milliseconds). */
  readonly elapsedMs: number;
}

/**
 * Runs one of the harness CLIs (`src/cli/<script>`) the way `pnpm` does, from the fuzz folder,
 * without blocking: the test can signal it while it runs.
 *
 * @param env - variables to set on top of this process's environment.
 * @param onSpawn - called with the child once it runs (to signal it later).
 */
export function spawnCli(script: string, args: readonly string[], env: Readonly<Record<string, string>> = {}, onSpawn: (child: ChildProcess) => void = () => {}): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', `src/cli/${script}`, ...args], { cwd: kFuzzDir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), kRunMsMax);
  onSpawn(child);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(guard);
      resolve({ status, signal, stdout, stderr, elapsedMs: performance.now() - started });
    });
  });
}
