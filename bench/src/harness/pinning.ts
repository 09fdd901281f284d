/**
 * Pinning every child to one core with `taskset -c N`, when the machine allows it: on a shared
 * 2-core machine a child that migrates between cores mid-sample adds noise to one variant only.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** How the children run: pinned or not, and why not. */
export interface Pinning {
  readonly used: boolean;
  /** The core every child runs on, or null when not pinned. */
  readonly cpu: number | null;
  /** The prefix of every child's command line (`taskset -c N`, or empty). */
  readonly prefix: readonly string[];
  /** A sentence for the summary and the JSON: how the children ran. */
  readonly note: string;
}

/** The probe must answer quickly; a `taskset` that hangs counts as missing. */
const kProbeTimeoutMs = 5_000;

/**
 * Probes `taskset -c cpu true`.
 *
 * @param cpu - the core to pin to, or null to not pin (`--no-pin`).
 */
export function detectPinning(cpu: number | null): Pinning {
  if (cpu === null) return { used: false, cpu: null, prefix: [], note: 'not pinned: --no-pin' };
  const probe = spawnSync('taskset', ['-c', String(cpu), 'true'], { timeout: kProbeTimeoutMs, stdio: 'ignore' });
  if (probe.error !== undefined) {
    return { used: false, cpu: null, prefix: [], note: `not pinned: taskset is not available (${(probe.error as NodeJS.ErrnoException).code ?? probe.error.message})` };
  }
  if (probe.status !== 0) {
    return { used: false, cpu: null, prefix: [], note: `not pinned: taskset -c ${cpu} failed with status ${String(probe.status)} (${availableParallelism()} cores available)` };
  }
  return { used: true, cpu, prefix: ['taskset', '-c', String(cpu)], note: `pinned: every child ran under taskset -c ${cpu}` };
}
