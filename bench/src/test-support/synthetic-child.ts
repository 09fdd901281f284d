/**
 * A synthetic child for the schedule and CLI tests: answers at once, no timing is measured.
 *
 * @internal
 */
import { seededRandom } from '../stats/seeded-random.js';
import type { CaseStats, ChildPort, ChildStart } from '../harness/child-protocol.js';

function stats(ns: number, cpuShare = 1): CaseStats {
  return { p50Ns: ns, p25Ns: ns, p75Ns: ns, minNs: ns, avgNs: ns, samples: 12, calls: 12, cpuShare };
}

export interface SyntheticChildren {
  readonly start: (s: ChildStart) => Promise<ChildPort>;
  /** Every start, in order. */
  readonly starts: ChildStart[];
  /** Every call, in order: `start <variant>`, `setup <variant> <index>`, `measure <variant> <index>`, `close <variant>`. */
  readonly log: string[];
}

/**
 * Children whose checks-off slices cost 1000 ns ± 1% and checks-on slices `cost(name)` times that.
 * `cpuShare(i)` is the CPU share the i-th measured slice (from 0, over all children) reports.
 * `onBias` multiplies every slice of the child started as checks-on, checks or not: a harness that
 * treats its two arms differently, which an A/A run must catch.
 */
export function syntheticChildren(cost: (name: string) => number, seed = 1, cpuShare: (slice: number) => number = () => 1, onBias = 1): SyntheticChildren {
  const random = seededRandom(seed);
  const starts: ChildStart[] = [];
  const log: string[] = [];
  let slice = 0;
  const start = (s: ChildStart): Promise<ChildPort> => {
    starts.push(s);
    log.push(`start ${s.variant}`);
    const checks = s.variant === 'checks-on' && !s.aa;
    let current = -1;
    let closed = false;
    return Promise.resolve({
      checks,
      empty: stats(0.2),
      setup: (index: number) => {
        log.push(`setup ${s.variant} ${index}`);
        current = index;
        return Promise.resolve({ ms: 1, calls: 16, optimized: true });
      },
      measure: (index: number) => {
        log.push(`measure ${s.variant} ${index}`);
        if (index !== current || closed) throw new Error(`measure ${index} without setup`);
        const name = s.cases[index]?.name ?? '';
        const bias = s.variant === 'checks-on' ? onBias : 1;
        return Promise.resolve(stats(1000 * bias * (checks ? cost(name) : 1) * (1 + 0.01 * (2 * random() - 1)), cpuShare(slice++)));
      },
      close: () => {
        if (!closed) log.push(`close ${s.variant}`);
        closed = true;
        return Promise.resolve();
      },
    });
  };
  return { start, starts, log };
}
