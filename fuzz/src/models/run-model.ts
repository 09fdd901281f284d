import fc from 'fast-check';
import { findRule } from '../contract/find-rule.js';
import { hasData, type CommandData } from './command-data.js';

/** What a campaign over one model found. */
export interface ModelRunReport<G = unknown> {
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
    readonly geometry: G;
    /**
     * The shrunk command sequence as data (each command's builder and arguments): what a
     * regression file stores and a replay decodes (the validator's too, for a process provider's
     * transcript). Empty for a model whose commands carry no data.
     */
    readonly commands: CommandData[];
    /** The same sequence printed for people, one call per line (`alloc(64)`); never read back. */
    readonly program: string[];
    readonly errorName: string;
    readonly message: string;
    /** The ledger rule, or the error code, that caught it. */
    readonly rule: string;
    /** The CONTRACT.md rule it broke (`A12`), for the models `pnpm validate` runs; null elsewhere. */
    readonly contractRule: string | null;
  };
}

/** How a campaign runs, for every model. */
export interface CampaignOptions {
  /** fast-check seed; drawn when absent and reported either way. */
  readonly seed?: number;
  /** Replay path of a recorded failure (with its seed). */
  readonly path?: string;
  /** @defaultValue 100 */
  readonly numRuns?: number;
  /** Stop starting new runs after this many milliseconds (not a failure). */
  readonly timeLimitMs?: number;
  /** Called after every run with the commands it executed. */
  readonly onRun?: (commandsRun: number) => void;
}

/** A value now, or a promise of it: what a model's steps return (the GPU model's await). */
export type MaybePromise<T> = T | Promise<T>;

/** `f(value)` at once for a value, after it resolves for a promise: one code path for both kinds of model. */
export function andThen<T, U>(value: MaybePromise<T>, f: (v: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}

/** A result that must not be a promise: a synchronous model's. */
export function syncResult<T>(value: MaybePromise<T>, what: string): T {
  if (value instanceof Promise) throw new Error(`${what} answered with a promise: its model awaits, so call it with await`);
  return value;
}

/** The commands a run draws, as fast-check's model runner takes them (an awaiting command returns a promise). */
export interface RunCommand<M, R> {
  check(m: Readonly<M>): boolean;
  run(m: M, r: R): void | Promise<void>;
  toString(): string;
}

/** One model, as the campaign runner needs it. */
export interface ModelSpec<G, M extends object, R> {
  /** A run: its geometry (printed in failures) and its command sequence. */
  readonly arbitrary: fc.Arbitrary<[G, Iterable<RunCommand<M, R>>]>;
  /** Whether a command, the setup or the drain awaits (the GPU model): the campaign then runs as an async property. */
  readonly async?: boolean;
  readonly setup: (geometry: G) => MaybePromise<{ model: M; real: R }>;
  /** The end of every run: give everything back and check the whole system is clean. */
  readonly drain: (model: M, real: R) => MaybePromise<void>;
  /** Commands the model executed (for throughput statistics). */
  readonly executed: (model: M) => number;
  /** The CONTRACT.md rule a failure broke (the validator's models); absent for the others. */
  readonly ruleOf?: (error: unknown) => string | null;
}

/**
 * Runs commands in order, each whose `check` passes, as `fc.modelRun` does; an awaiting command's
 * promise is awaited before the next, and a synchronous run never makes a promise.
 */
function runCommands<M, R>(model: M, real: R, commands: Iterable<RunCommand<M, R>>): MaybePromise<void> {
  const it = commands[Symbol.iterator]();
  const rest = (): MaybePromise<void> => {
    for (let step = it.next(); step.done !== true; step = it.next()) {
      const command = step.value;
      if (!command.check(model)) continue;
      const out = command.run(model, real);
      if (out instanceof Promise) return out.then(rest);
    }
  };
  return rest();
}

/** One run: setup, the commands, the drain. `made` hears the model as soon as it exists (for the run's statistics). */
function runOne<G, M extends object, R>(spec: ModelSpec<G, M, R>, geometry: G, commands: Iterable<RunCommand<M, R>>, made: (model: M) => void): MaybePromise<M> {
  return andThen(spec.setup(geometry), ({ model, real }) => {
    made(model);
    return andThen(
      andThen(runCommands(model, real, commands), () => spec.drain(model, real)),
      () => model,
    );
  });
}

/** @internal The name, message and rule of what a run threw (shared with the asynchronous runner). */
export function describeError(error: unknown): { errorName: string; message: string; rule: string } {
  if (error instanceof Error) {
    const e = error as Error & { rule?: string; code?: string };
    return { errorName: e.name, message: e.rule === undefined && e.code === undefined && e.stack !== undefined ? `${e.message}\n${e.stack.split("\n").slice(1, 4).join("\n")}` : e.message, rule: e.rule ?? e.code ?? e.name };
  }
  return { errorName: 'thrown', message: String(error), rule: 'thrown' };
}

/** @internal `fc.check`'s parameters for a campaign (shared with the asynchronous runner). */
export function checkParameters<Ts>(seed: number, options: CampaignOptions): fc.Parameters<Ts> {
  return {
    seed,
    numRuns: options.numRuns ?? 100,
    ...(options.path !== undefined ? { path: options.path } : {}),
    ...(options.timeLimitMs !== undefined ? { interruptAfterTimeLimit: options.timeLimitMs } : {}),
  };
}

/**
 * @internal The commands of a counterexample as data: fast-check hands them over wrapped (its
 * wrapper keeps the command as `cmd`). All or nothing, so a list is never a partial program.
 */
function commandsAsData(commands: readonly object[]): CommandData[] {
  const inner = commands.map((c) => ('cmd' in c ? (c as { cmd: unknown }).cmd : c));
  return inner.every(hasData) ? inner.map((c) => c.toData()) : [];
}

/** @internal A finished campaign's report: counts, and the shrunk counterexample as data and as text (shared with the asynchronous runner). */
export function campaignReport<G, C extends object>(
  details: fc.RunDetails<[[G, Iterable<C>]]>,
  counts: { readonly runs: number; readonly commands: number; readonly elapsedMs: number; readonly detectMs: number | null },
  ruleOf?: (error: unknown) => string | null,
): ModelRunReport<G> {
  const base = { ...counts, seed: details.seed, interrupted: details.interrupted };
  if (!details.failed || details.counterexample === null) return { ...base, failed: false, failure: null };
  const [g, cmds] = details.counterexample[0];
  // Only the commands that ran: a run that failed at create, or mid-way, never reached the rest (fast-check marks each `hasRan`).
  const list = Array.from(cmds).filter((c) => !('hasRan' in c) || (c as { hasRan: unknown }).hasRan === true);
  return {
    ...base,
    failed: true,
    failure: { path: details.counterexamplePath ?? '', geometry: g, commands: commandsAsData(list), program: list.map(String), ...describeError(details.errorInstance), contractRule: ruleOf?.(details.errorInstance) ?? null },
  };
}

/**
 * Runs a model campaign with `fc.check`: random runs until `numRuns` or the time limit, a drain at
 * the end of each, shrinking on failure. Never throws for a failure: it reports it. A model that
 * awaits runs as an async property and answers with a promise; a synchronous one answers at once
 * and makes no promise per command.
 */
export function runCampaign<G, M extends object, R>(spec: ModelSpec<G, M, R>, options: CampaignOptions = {}): MaybePromise<ModelRunReport<G>> {
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
  const started = performance.now();
  let detectMs: number | null = null;
  let commands = 0;
  let runs = 0;
  const passed = (model: M | null): void => {
    // Runs after the first failure (shrinking) are not campaign statistics.
    if (detectMs !== null || model === null) return;
    runs++;
    commands += spec.executed(model);
    options.onRun?.(spec.executed(model));
  };
  const failed = (error: unknown): never => {
    detectMs ??= performance.now() - started;
    throw error;
  };
  const predicate = ([g, cmds]: [G, Iterable<RunCommand<M, R>>]): MaybePromise<void> => {
    let model: M | null = null;
    let out: MaybePromise<M>;
    try {
      // Inside the try: a provider whose create breaks the contract fails the run like any command.
      out = runOne(spec, g, cmds, (m) => void (model = m));
    } catch (error) {
      return failed(error);
    }
    if (out instanceof Promise) return out.then(() => passed(model), failed);
    passed(model);
  };
  const counts = () => ({ runs, commands, elapsedMs: performance.now() - started, detectMs });
  const parameters = checkParameters<[[G, Iterable<RunCommand<M, R>>]]>(seed, options);
  if (spec.async === true) {
    return fc.check(fc.asyncProperty(spec.arbitrary, async (v) => predicate(v)), parameters).then((details) => campaignReport(details, counts(), spec.ruleOf));
  }
  const property = fc.property(spec.arbitrary, (v) => void syncResult(predicate(v), 'a synchronous model'));
  return campaignReport(fc.check(property, parameters), counts(), spec.ruleOf);
}

/** Runs one program (a geometry and a command list) and drains; throws (or rejects with) what the oracle finds. */
export function runProgram<G, M extends object, R>(spec: ModelSpec<G, M, R>, geometry: G, commands: Iterable<RunCommand<M, R>>): MaybePromise<M> {
  return runOne(spec, geometry, commands, () => {});
}

/** A failure as the text a person reads: header (seed, path, geometry), the rule, and the program. */
export function formatFailure<G>(report: ModelRunReport<G>, target: string, formatGeometry: (g: G) => string = (g) => JSON.stringify(g)): string {
  const f = report.failure;
  if (f === null) return '';
  const rule = f.contractRule === null ? undefined : findRule(f.contractRule);
  return [
    `${target}: ${f.errorName} — ${f.message}`,
    ...(rule === undefined ? [] : [`  breaks ${rule.id} (CONTRACT.md): ${rule.title}`]),
    `  seed ${report.seed}, path "${f.path}", geometry: ${formatGeometry(f.geometry)}`,
    `  program (${f.program.length} commands):`,
    ...f.program.map((line) => `    ${line},`),
  ].join('\n');
}
