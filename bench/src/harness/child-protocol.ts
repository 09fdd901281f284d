/**
 * The conversation between the orchestrator and a child process. A child holds one variant of one
 * bench file for one round. The orchestrator keeps both variants' children alive and alternates
 * them slice by slice — at any moment one child measures and the other waits on its stdin, idle —
 * so both variants sample the same stretches of the machine's noise, while the JIT of each only
 * ever sees its own variant.
 *
 * Start: `ChildStart` as the one JSON argument. Then JSON lines: `ChildCommand` on the child's
 * stdin, `ChildReply` on its stdout after {@link kChildReplyMarker}.
 */
import type { SetupContext, VariantId } from './bench-pair.js';

/** Prefix of every reply line; anything else on stdout is ignored. */
export const kChildReplyMarker = 'kvfuzz-bench-child ';

export interface ChildStart {
  /** Path under `bench/src`, e.g. `allocator-core/alloc-free.bench.ts`. */
  readonly file: string;
  readonly variant: VariantId;
  /** The cases the child may be asked for, by index in this list. */
  readonly cases: readonly { readonly name: string; readonly pairIndex: number; readonly pointIndex: number }[];
  /**
   * Untimed calls after a case's setup (ms, at least): the warm-up goes on until the timed function
   * runs TurboFan code, up to `kWarmupMsMax` (run-child.ts).
   */
  readonly warmupMs: number;
  /** A/A calibration: the checks-on child runs with checks off too, so the ratio shows the harness's own bias. */
  readonly aa: boolean;
  /** Handed to every case's setup. */
  readonly context: SetupContext;
}

export type ChildCommand =
  /** Build case `index`'s state (dropping the previous case's) and warm it up. */
  | { readonly op: 'setup'; readonly index: number }
  /** Time the current case for at least `ms` of CPU time (one slice). */
  | { readonly op: 'measure'; readonly index: number; readonly ms: number }
  | { readonly op: 'exit' };

export type ChildReply =
  /** Loaded; `empty` is the empty function measured in this child. */
  | { readonly op: 'ready'; readonly checks: boolean; readonly empty: CaseStats }
  | { readonly op: 'setup'; readonly index: number; readonly warmup: WarmupStats }
  | { readonly op: 'measure'; readonly index: number; readonly stats: CaseStats }
  | { readonly op: 'error'; readonly message: string };

/** How a case's warm-up went. */
export interface WarmupStats {
  readonly ms: number;
  readonly calls: number;
  /** Whether the timed function ran TurboFan code when the warm-up ended; null where V8 could not say. */
  readonly optimized: boolean | null;
}

/** mitata's statistics of one slice, per call (ns), without the samples. */
export interface CaseStats {
  readonly p50Ns: number;
  readonly p25Ns: number;
  readonly p75Ns: number;
  readonly minNs: number;
  readonly avgNs: number;
  /** Samples kept (mitata drops the two fastest and two slowest past 12). */
  readonly samples: number;
  /** Timed calls. */
  readonly calls: number;
  /**
   * CPU time of this process over wall time during the slice. On a pinned core it is ~1 when the
   * child had the core to itself; lower means another process took the core for part of it.
   */
  readonly cpuShare: number;
}

/** One child as the orchestrator drives it (a real process, or a synthetic one in tests). */
export interface ChildPort {
  readonly checks: boolean;
  /** The empty function, measured in this child before any case. */
  readonly empty: CaseStats;
  setup(index: number): Promise<WarmupStats>;
  measure(index: number, ms: number): Promise<CaseStats>;
  /** Ends the child; safe to call twice. */
  close(): Promise<void>;
}
