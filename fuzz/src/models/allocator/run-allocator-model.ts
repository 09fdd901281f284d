import fc from 'fast-check';
import { referenceProvider, type AllocatorProvider } from '@kvfuzz/allocator-core';
import { PageLedger } from '../../ledger/page-ledger.js';
import { allocatorCommandArbitraries, commandMixArbitrary, kCommandsPerRunMax, type CommandMix } from './allocator-commands.js';
import type { AllocatorModel, AllocatorReal } from './allocator-model-state.js';
import type { AllocatorCommand } from './commands/command.js';
import { drainAllocator } from './drain.js';
import { formatGeometry, geometryArbitrary, pageSizeOf, sizeTokensOf, type AllocatorGeometry } from './geometry.js';

/** How a campaign against the allocator model runs. */
export interface AllocatorModelOptions {
  /**
   * The implementation under test.
   * @defaultValue the reference (`referenceProvider`)
   */
  readonly provider?: AllocatorProvider;
  /**
   * `contract`: any page choice that keeps the contract; `exact`: also the reference's page ids and order.
   * @defaultValue 'contract'
   */
  readonly mode?: 'contract' | 'exact';
  /** fast-check seed; drawn when absent and reported either way. */
  readonly seed?: number;
  /** Replay path of a recorded failure (with its seed). */
  readonly path?: string;
  /**
   * Runs to try (each a geometry and a command sequence).
   * @defaultValue 100
   */
  readonly numRuns?: number;
  /** Stop starting new runs after this many milliseconds (not a failure). */
  readonly timeLimitMs?: number;
  /** Geometry fields to hold fixed instead of drawing. */
  readonly geometry?: Partial<AllocatorGeometry>;
  /** @defaultValue kCommandsPerRunMax */
  readonly maxCommands?: number;
  /** Called after every run with the commands it executed. */
  readonly onRun?: (commandsRun: number) => void;
}

/** What a campaign found. */
export interface ModelRunReport {
  readonly failed: boolean;
  readonly interrupted: boolean;
  readonly runs: number;
  readonly commands: number;
  readonly elapsedMs: number;
  readonly seed: number;
  /** Milliseconds from the start to the first failing run (before shrinking). */
  readonly detectMs: number | null;
  readonly failure: null | {
    readonly path: string;
    readonly geometry: AllocatorGeometry;
    readonly mix: CommandMix;
    /** The shrunk command sequence, one call per line, as code. */
    readonly program: string[];
    readonly errorName: string;
    readonly message: string;
    /** The ledger rule, or the error code, that caught it. */
    readonly rule: string;
  };
}

export type AllocatorRunInput = [AllocatorGeometry, CommandMix, Iterable<AllocatorCommand>];

export function newAllocatorModel(g: AllocatorGeometry): AllocatorModel {
  return { geometry: g, pageSize: pageSizeOf(g), ledger: new PageLedger(pageSizeOf(g), g.poolPages), live: [], nextId: 0, groupOpen: false, backup: null, executed: 0 };
}

export function newAllocatorReal(g: AllocatorGeometry, provider: AllocatorProvider, exact: boolean): AllocatorReal {
  const config = { sizeTokens: sizeTokensOf(g), kernelPageSize: g.kernelPageSize, dcpSize: g.dcpSize, needSort: g.needSort, checks: g.checks };
  return {
    allocator: provider.create(config),
    shadow: exact ? referenceProvider.create(config) : null,
    backupState: null,
    shadowBackupState: null,
    selfCheck: provider === referenceProvider,
  };
}

/** Runs one program (a geometry and a command list) and drains; throws what the oracle finds. */
export function runAllocatorProgram(g: AllocatorGeometry, commands: Iterable<AllocatorCommand>, provider: AllocatorProvider = referenceProvider, exact = false): AllocatorModel {
  const m = newAllocatorModel(g);
  const r = newAllocatorReal(g, provider, exact);
  fc.modelRun(() => ({ model: m, real: r }), commands);
  drainAllocator(m, r);
  return m;
}

export function allocatorRunArbitrary(fixed: Partial<AllocatorGeometry>, maxCommands: number): fc.Arbitrary<AllocatorRunInput> {
  return fc
    .tuple(geometryArbitrary(fixed), commandMixArbitrary)
    .chain(([g, mix]) => fc.tuple(fc.constant(g), fc.constant(mix), fc.commands(allocatorCommandArbitraries(g, mix), { maxCommands, size: 'max' })));
}

function describeError(error: unknown): { errorName: string; message: string; rule: string } {
  if (error instanceof Error) {
    const e = error as Error & { rule?: string; code?: string };
    return { errorName: e.name, message: e.message, rule: e.rule ?? e.code ?? e.name };
  }
  return { errorName: 'thrown', message: String(error), rule: 'thrown' };
}

/**
 * Runs the allocator model: random geometries and command sequences against the provider, the
 * ledger as the oracle, a drain at the end of every run. Never throws for a failure: it reports it.
 */
export function runAllocatorModel(options: AllocatorModelOptions = {}): ModelRunReport {
  const provider = options.provider ?? referenceProvider;
  const exact = options.mode === 'exact';
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
  const started = performance.now();
  let detectMs: number | null = null;
  let commands = 0;
  let runs = 0;
  const property = fc.property(allocatorRunArbitrary(options.geometry ?? {}, options.maxCommands ?? kCommandsPerRunMax), ([g, , cmds]) => {
    const m = newAllocatorModel(g);
    const r = newAllocatorReal(g, provider, exact);
    try {
      fc.modelRun(() => ({ model: m, real: r }), cmds);
      drainAllocator(m, r);
    } catch (error) {
      detectMs ??= performance.now() - started;
      throw error;
    } finally {
      if (detectMs === null) {
        runs++;
        commands += m.executed;
        options.onRun?.(m.executed);
      }
    }
  });
  const details = fc.check(property, {
    seed,
    numRuns: options.numRuns ?? 100,
    ...(options.path !== undefined ? { path: options.path } : {}),
    ...(options.timeLimitMs !== undefined ? { interruptAfterTimeLimit: options.timeLimitMs } : {}),
  });
  const elapsedMs = performance.now() - started;
  const base = { runs, commands, elapsedMs, seed: details.seed, detectMs, interrupted: details.interrupted };
  if (!details.failed || details.counterexample === null) return { ...base, failed: false, failure: null };
  const [g, mix, cmds] = details.counterexample[0];
  return {
    ...base,
    failed: true,
    failure: {
      path: details.counterexamplePath ?? '',
      geometry: g,
      mix,
      program: Array.from(cmds, (c) => c.toString()),
      ...describeError(details.errorInstance),
    },
  };
}

/** A failure as the text a person reads: header (seed, path, geometry), the rule, and the program. */
export function formatFailure(report: ModelRunReport, target: string): string {
  const f = report.failure;
  if (f === null) return '';
  return [
    `${target}: ${f.errorName} — ${f.message}`,
    `  seed ${report.seed}, path "${f.path}", geometry: ${formatGeometry(f.geometry)}`,
    `  program (${f.program.length} commands):`,
    ...f.program.map((line) => `    ${line},`),
  ].join('\n');
}
