/**
 * `pnpm validate`: a verdict on an alternative allocator, with a minimal counterexample.
 * Exit 0: no violation within the budget; 1: a violation; 2: bad usage, or the provider could not
 * be loaded, broke the protocol, hung or crashed. Run `pnpm validate --help`.
 *
 * Every provider runs in a child process of its own — a `--cmd` program, or the module host for a
 * module — under a supervisor that stops its whole process group when the validator is done or
 * dies, so nothing the provider does reaches this process's state, exit status or terminal, and
 * nothing it started outlives the run.
 */
import { parseArgs } from 'node:util';
import { findRule } from '../contract/find-rule.js';
import { familiesOf } from '../contract/rule-families.js';
import { formatRuleReport, ruleReportJunit } from '../validate/format-rule-report.js';
import type { RuleVerdict } from '../validate/rule-report.js';
import type { ModelRunReport } from '../models/run-model.js';
import { ProviderFault } from '../provider-fault.js';
import { inertLine, inertText } from '../text/inert-text.js';
import { resolveModuleFile } from '../validate/module-provider.js';
import { ProcessProvider } from '../validate/process-provider.js';
import { engineLaunch, engineSource, kEngines, type EngineName } from '../validate/engine-launch.js';
import { commandLaunch, moduleHostLaunch } from '../validate/provider-launch.js';
import { printTranscript } from '../validate/transcript.js';
import { reportProvider, validateHostPoolProvider, validateProvider, type RuleReport, type ValidationReport } from '../validate/validate-provider.js';
import { checkOutputPath, writeOutputFile } from './output-file.js';
import { ProgressLine } from './progress-line.js';
import { runMain } from './run-main.js';
import { fastCheckSeed, kSeedMax, parseSeed, randomSeed } from './seed.js';
import { UsageError } from './usage-error.js';

/** Default budget: long enough for thousands of runs, short enough to wait for. */
const kTimeSecondsDefault = 30;
/** Longest budget accepted (a day): a bound on the campaign, and catches minutes typed as seconds. */
const kTimeSecondsMax = 86_400;
/** A provider call slower than this is taken as hung (the validator must always return). */
const kCallTimeoutMsDefault = 5_000;
/** The wait for the greeting: a process start (Python, a JIT, a container) may take seconds without being hung. */
const kStartTimeoutMsDefault = 10_000;
/** Longest wait either timeout accepts (ten minutes): a bound on every wait, and catches a value typed with too many zeros. */
const kTimeoutMsMax = 600_000;
/** The module host's heap: the models' pools are small, so a provider needing more is leaking. */
const kProviderMemoryMibDefault = 1_024;
/** Below this the module host itself (Node.js and tsx) may not start. */
const kProviderMemoryMibMin = 32;
/** Above this the limit stops being one on the machines kvfuzz targets. */
const kProviderMemoryMibMax = 65_536;
/** The provider's name as printed: one line, short enough for a summary. */
const kNameCharsMax = 80;
/** Lines of the provider's stderr shown with a fault. */
const kStderrLinesShown = 20;
/** Characters of a fault's message in the summary line. */
const kFaultCharsMax = 400;

if (kCallTimeoutMsDefault > kTimeoutMsMax || kStartTimeoutMsDefault > kTimeoutMsMax) throw new Error('the default timeouts must be accepted values');
if (kProviderMemoryMibDefault < kProviderMemoryMibMin || kProviderMemoryMibDefault > kProviderMemoryMibMax) throw new Error('kProviderMemoryMibDefault must be an accepted value');

const kHelp = `Usage: pnpm validate PROVIDER [options]
       pnpm validate --cmd "COMMAND" [options]
       pnpm validate --engine sglang [--engine-src DIR] [options]

PROVIDER is an ES module (.js, .mjs, .ts, .mts) whose default export is { name, create(config) }
implementing the PageAllocator contract; it runs in a child process of its own (the module
host). --cmd runs a program that speaks the JSON-lines protocol of fuzz/PROTOCOL.md
(kvfuzz-allocator/1) on stdin/stdout. --engine runs an engine's own code through this
repository's adapter (adapters/<engine>/README.md). Every provider runs in a process group that
is stopped (SIGTERM, then SIGKILL) when validation ends, however it ends. The rules it is held to
are CONTRACT.md's.

Options:
  --engine NAME          ${kEngines.join(' | ')}: the engine's own allocator (or --pool host: host pool)
                         through its adapter, with Python 3 and torch (bash ci/setup.sh installs
                         Debian's python3-torch; KVFUZZ_PYTHON picks another interpreter)
  --engine-src DIR       the engine's source tree (a checkout, or a sparse one holding the files
                         the adapter names); without it, the installed package
  --pool KIND            allocator (default): a PageAllocator provider; host: a host (L2) slot
                         pool provider, { name, create(config) } returning a HostPool
  --mode MODE            contract (default): any page choice that keeps the contract;
                         exact: also the reference's page ids and order (drop-in ports)
  --time SECONDS         time budget (default ${kTimeSecondsDefault}, at most ${kTimeSecondsMax})
  --seed N               campaign seed, an integer in [0, ${kSeedMax}] (default: random;
                         printed either way)
  --start-timeout MS     longest wait for the provider to start and answer hello
                         (default ${kStartTimeoutMsDefault})
  --call-timeout MS      longest wait for any other reply, a module's loading included
                         (default ${kCallTimeoutMsDefault})
  --provider-memory MIB  heap limit of a module provider's process (default ${kProviderMemoryMibDefault},
                         at least ${kProviderMemoryMibMin}); running out is reported as such
  --report               a verdict per rule of CONTRACT.md: the valid traffic and each rule's
                         own inputs run apart (the budget split evenly), so one violation does
                         not hide the others; a table of rule | level | status | runs
  --json FILE            write the verdict as JSON (its folder must exist); with --report,
                         { "rules": [ { id, title, level, status, runs, counterexample? } ] }
  --junit FILE           write JUnit XML: one test case, or with --report one per rule
  --debug                show where an unexpected error came from
  -h, --help             this text

Exit status: 0 no violation within the budget, 1 a violation, 2 bad usage or a provider that
could not be loaded, broke the protocol, hung, crashed or ran out of memory.`;

interface ValidateOptions {
  readonly pool: 'allocator' | 'host';
  readonly provider:
    | { readonly kind: 'module'; readonly path: string }
    | { readonly kind: 'cmd'; readonly command: string }
    | { readonly kind: 'engine'; readonly engine: EngineName; readonly source: string | null };
  readonly mode: 'contract' | 'exact';
  readonly timeSeconds: number;
  /** The seed as given (printed and written as is); the campaign runs its fast-check fold. */
  readonly seed: number;
  readonly startTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly providerMemoryMib: number;
  /** Where the JSON verdict goes, checked writable before the run; null without `--json`. */
  readonly json: string | null;
  /** Where JUnit XML goes, checked writable before the run; null without `--junit`. */
  readonly junit: string | null;
  /** A verdict per contract rule instead of one for the whole contract. */
  readonly report: boolean;
}

/** A number of seconds in `(0, max]`. */
function seconds(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value > 0 && value <= max)) throw new UsageError(`${name} ${JSON.stringify(raw)} is not a number of seconds in (0, ${max}]`);
  return value;
}

/** An integer in `[min, max]`. */
function integerIn(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${name} ${JSON.stringify(raw)} is not an integer in [${min}, ${max}]`);
  return value;
}

function parseCli(argv: readonly string[], baseDir: string): ValidateOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        cmd: { type: 'string' },
        engine: { type: 'string' },
        'engine-src': { type: 'string' },
        mode: { type: 'string', default: 'contract' },
        pool: { type: 'string', default: 'allocator' },
        time: { type: 'string' },
        seed: { type: 'string' },
        'start-timeout': { type: 'string' },
        'call-timeout': { type: 'string' },
        'provider-memory': { type: 'string' },
        json: { type: 'string' },
        junit: { type: 'string' },
        report: { type: 'boolean', default: false },
        debug: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const positionals = parsed.positionals;
  const kinds = [positionals.length > 0, v.cmd !== undefined, v.engine !== undefined].filter(Boolean).length;
  if (kinds > 1) throw new UsageError('give one of PROVIDER, --cmd or --engine');
  if (v['engine-src'] !== undefined && v.engine === undefined) throw new UsageError('--engine-src needs --engine');
  if (v.engine !== undefined && !(kEngines as readonly string[]).includes(v.engine)) throw new UsageError(`--engine ${JSON.stringify(v.engine)} is not one of ${kEngines.join(', ')}`);
  if (kinds === 0) throw new UsageError('no PROVIDER given (a module path, --cmd "COMMAND" or --engine NAME)');
  if (v.cmd === undefined && v.engine === undefined && positionals.length !== 1) throw new UsageError(`one PROVIDER expected, got ${positionals.length}`);
  if (v.cmd !== undefined && v.cmd.trim() === '') throw new UsageError('--cmd is empty');
  if (v.mode !== 'contract' && v.mode !== 'exact') throw new UsageError(`--mode ${JSON.stringify(v.mode)} is not contract or exact`);
  if (v.pool !== 'allocator' && v.pool !== 'host') throw new UsageError(`--pool ${JSON.stringify(v.pool)} is not allocator or host`);
  return {
    pool: v.pool,
    provider:
      v.engine !== undefined
        ? { kind: 'engine', engine: v.engine as EngineName, source: engineSource(v['engine-src'], baseDir) }
        : v.cmd !== undefined
          ? { kind: 'cmd', command: v.cmd }
          : { kind: 'module', path: positionals[0] as string },
    mode: v.mode,
    timeSeconds: seconds('--time', v.time, kTimeSecondsDefault, kTimeSecondsMax),
    seed: v.seed === undefined ? randomSeed() : parseSeed(v.seed),
    startTimeoutMs: integerIn('--start-timeout', v['start-timeout'], kStartTimeoutMsDefault, 1, kTimeoutMsMax),
    callTimeoutMs: integerIn('--call-timeout', v['call-timeout'], kCallTimeoutMsDefault, 1, kTimeoutMsMax),
    providerMemoryMib: integerIn('--provider-memory', v['provider-memory'], kProviderMemoryMibDefault, kProviderMemoryMibMin, kProviderMemoryMibMax),
    json: v.json === undefined ? null : checkOutputPath('--json', v.json, baseDir),
    junit: v.junit === undefined ? null : checkOutputPath('--junit', v.junit, baseDir),
    report: v.report,
  };
}

/** Standard output, every line of it our own or made inert. */
function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** The end of the provider's stderr, inert and indented, when there is any. */
function printStderrTail(label: string, tail: string): void {
  // V8's native frames after an out-of-memory report say nothing about the provider.
  const native = tail.indexOf('\n----- Native stack trace -----');
  const kept = native < 0 ? tail : tail.slice(0, native);
  const lines = inertText(kept.replace(/\r\n/g, '\n')).split('\n').filter((line) => line.trim() !== '');
  if (lines.length === 0) return;
  print(`${label}: its stderr ends:`);
  for (const line of lines.slice(-kStderrLinesShown)) print(`  | ${line}`);
}

/** A failure's contract rule, as the summary line names it: `A12 (statement)`, or the ledger law when the failure is outside the contract. */
function brokenRule(failure: ModelRunReport<unknown>['failure']): string {
  const rule = failure?.contractRule === null || failure?.contractRule === undefined ? undefined : findRule(failure.contractRule);
  return rule === undefined ? `no contract rule (${inertLine(failure?.rule ?? 'unknown', kNameCharsMax)})` : `${rule.id} (${rule.title})`;
}

/** A failure's contract rule for `--json`: its id and statement. */
function ruleJson(failure: ModelRunReport<unknown>['failure']): { id: string; title: string } | null {
  const rule = failure?.contractRule === null || failure?.contractRule === undefined ? undefined : findRule(failure.contractRule);
  return rule === undefined ? null : { id: rule.id, title: rule.title };
}

/** The verdict as JSON (`--json`): what CI keeps. */
function writeJson(file: string, options: ValidateOptions, label: string, result: ValidationReport | null, fault: string | null): void {
  const report = result?.report ?? null;
  const json = {
    kvfuzz: 'validate/1',
    pool: options.pool,
    provider: label,
    mode: options.mode,
    verdict: result?.verdict ?? 'provider-fault',
    seed: options.seed,
    runs: report?.runs ?? 0,
    commands: report?.commands ?? 0,
    elapsedMs: report === null ? 0 : Math.round(report.elapsedMs),
    detectMs: report?.detectMs == null ? null : Math.round(report.detectMs),
    failure: result?.verdict === 'violation' ? report?.failure ?? null : null,
    transcript: result?.transcript?.lines ?? null,
    rule: result?.verdict === 'violation' ? ruleJson(report?.failure ?? null) : null,
    fault,
  };
  writeOutputFile(file, `${JSON.stringify(json, null, 2)}\n`);
}

async function main(argv: readonly string[]): Promise<number> {
  const baseDir = process.env['INIT_CWD'] ?? process.cwd();
  const options = parseCli(argv, baseDir);
  if (options === 'help') {
    print(kHelp);
    return 0;
  }
  const spec = options.provider;
  let label = inertLine(spec.kind === 'module' ? spec.path : spec.kind === 'cmd' ? spec.command : spec.engine, kNameCharsMax);
  const couldNotLoad = (fault: ProviderFault, tail: string): number => {
    printStderrTail(label, tail);
    if (options.json !== null) writeJson(options.json, options, label, null, fault.message);
    print(`${label}: the provider could not be ${spec.kind === 'module' ? 'loaded' : 'started'} (exit 2) — ${inertLine(fault.message, kFaultCharsMax)}`);
    return 2;
  };
  let launch;
  try {
    launch =
      spec.kind === 'module'
        ? moduleHostLaunch(resolveModuleFile(spec.path, baseDir), options.providerMemoryMib)
        : spec.kind === 'cmd'
          ? commandLaunch(spec.command)
          : engineLaunch(spec.engine, spec.source, options.startTimeoutMs);
  } catch (error) {
    if (!(error instanceof ProviderFault)) throw error;
    return couldNotLoad(error, '');
  }
  const provider = new ProcessProvider({ launch, moduleHost: spec.kind === 'module', label, startTimeoutMs: options.startTimeoutMs, callTimeoutMs: options.callTimeoutMs });
  try {
    try {
      provider.open();
    } catch (error) {
      if (!(error instanceof ProviderFault)) throw error;
      return couldNotLoad(error, provider.close());
    }
    label = inertLine(provider.name, kNameCharsMax);
    if (options.report) return ruleReport(provider, options, label);
    const result = campaign(provider, options, label);
    const tail = provider.close();
    if (options.json !== null) writeJson(options.json, options, label, result, result.verdict === 'provider-fault' ? result.text : null);
    if (options.junit !== null) writeOutputFile(options.junit, validationJunit(label, result));
    const { report } = result;
    const tried = `${report.runs} runs, ${report.commands} commands in ${(report.elapsedMs / 1000).toFixed(1)}s (seed ${options.seed}, ${options.pool === 'host' ? 'host pool, ' : ''}${result.mode} mode, checks on and off, bad input included)`;
    if (result.verdict === 'pass') {
      print(`${label}: no violation — ${tried}`);
      return 0;
    }
    if (result.verdict === 'provider-fault') {
      printStderrTail(label, tail);
      print(`${label}: the provider failed (exit 2) — ${inertLine(result.text, kFaultCharsMax)} — after ${tried}`);
      return 2;
    }
    print(`${inertText(result.text)}\n`);
    printTranscript(result, print);
    print(`${label}: VIOLATION of ${brokenRule(report.failure)} after ${((report.detectMs ?? 0) / 1000).toFixed(2)}s — ${tried}`);
    return 1;
  } finally {
    provider.close();
  }
}

/**
 * `--report`: the valid traffic and each rule's own inputs apart, a table of verdicts, and each
 * violated rule's counterexample. Exit 1 when a rule is violated, 2 when the provider broke off.
 */
function ruleReport(provider: ProcessProvider, options: ValidateOptions, label: string): number {
  const progress = new ProgressLine();
  const started = Date.now();
  let family = '';
  let runs = 0;
  const report = reportProvider(
    options.pool === 'host' ? { pool: 'host', host: provider.host } : { pool: 'allocator', allocator: provider },
    options.mode,
    {
      seed: fastCheckSeed(options.seed),
      numRuns: Number.MAX_SAFE_INTEGER,
      timeLimitMs: options.timeSeconds * 1000,
      onFamily: (name) => void (family = name),
      onRun: () => {
        runs++;
        progress.update(() => `[validate --report ${label}] ${((Date.now() - started) / 1000).toFixed(1)}s/${options.timeSeconds}s  ${family === 'valid' ? 'valid traffic' : `${family} inputs`}  runs ${runs}`);
      },
    },
    { label, fault: () => provider.fault },
  );
  progress.done();
  const tail = provider.close();
  const seconds = report.elapsedMs / 1000;
  if (options.json !== null) writeOutputFile(options.json, `${JSON.stringify(reportJson(report, options, label), null, 2)}\n`);
  if (options.junit !== null) writeOutputFile(options.junit, ruleReportJunit(report.verdicts, label, seconds));
  const count = (status: RuleVerdict['status']): RuleVerdict[] => report.verdicts.filter((v) => v.status === status);
  const tried = `${report.runs} runs, ${report.commands} commands in ${seconds.toFixed(1)}s (seed ${options.seed}, ${options.pool === 'host' ? 'host pool, ' : ''}${options.mode} mode, ${report.families.length} families)`;
  if (report.fault !== null) {
    printStderrTail(label, tail);
    print(`${label}: the provider failed (exit 2) in the ${familyOfFault(report)} — ${inertLine(report.fault.text, kFaultCharsMax)} — after ${tried}`);
    return 2;
  }
  print(`${formatRuleReport(report.verdicts)}\n`);
  const violated = count('violated');
  print(
    `${label}: ${count('holds').length} rules hold, ${violated.length} violated${violated.length === 0 ? '' : ` (${violated.map((v) => v.id).join(', ')})`}, ${count('not-applicable').length} not applicable — ${tried}`,
  );
  return violated.length > 0 ? 1 : 0;
}

/** Which family a report's fault broke off, in words. */
function familyOfFault(report: RuleReport): string {
  const done = report.families.length;
  const families = familiesOf(report.pool);
  const name = families[done]?.name ?? 'valid';
  return name === 'valid' ? 'valid traffic' : `${name} inputs`;
}

/** `--report --json`: every rule's verdict. */
function reportJson(report: RuleReport, options: ValidateOptions, label: string): unknown {
  return {
    kvfuzz: 'validate-report/1',
    pool: options.pool,
    provider: label,
    mode: options.mode,
    seed: options.seed,
    runs: report.runs,
    commands: report.commands,
    elapsedMs: Math.round(report.elapsedMs),
    fault: report.fault?.text ?? null,
    rules: report.verdicts.map((v) => ({
      id: v.id,
      title: v.title,
      level: v.level,
      status: v.status,
      runs: v.runs,
      ...(v.counterexample === undefined ? {} : { counterexample: { family: v.counterexample.family, geometry: v.counterexample.geometry, program: v.counterexample.program, text: v.counterexample.text, transcript: v.counterexample.transcript } }),
    })),
  };
}

/** `--junit` without `--report`: one test case for the whole contract, its failure naming the rule. */
function validationJunit(label: string, result: ValidationReport): string {
  const failure = result.report.failure;
  const rule = failure === null || failure.contractRule === null ? undefined : findRule(failure.contractRule);
  const verdict: RuleVerdict = {
    id: 'contract',
    title: `${label} keeps CONTRACT.md`,
    level: 'MUST',
    status: result.verdict === 'pass' ? 'holds' : 'violated',
    runs: result.report.runs,
    ...(result.verdict === 'pass' ? {} : { counterexample: { family: rule?.id ?? 'fault', text: `${rule === undefined ? '' : `${rule.id} (${rule.title})\n`}${result.text}`, program: failure?.program ?? [], geometry: failure?.geometry ?? null, transcript: result.transcript?.lines ?? null } }),
  };
  return ruleReportJunit([verdict], label, result.report.elapsedMs / 1000);
}

/** Runs the model over the provider for the time budget, with a progress line on stderr. */
function campaign(provider: ProcessProvider, options: ValidateOptions, label: string): ValidationReport {
  const progress = new ProgressLine();
  const started = Date.now();
  let runs = 0;
  let commands = 0;
  const campaignOptions = {
    seed: fastCheckSeed(options.seed),
    numRuns: Number.MAX_SAFE_INTEGER,
    timeLimitMs: options.timeSeconds * 1000,
    onRun: (executed: number) => {
      runs++;
      commands += executed;
      progress.update(() => `[validate ${label}] ${((Date.now() - started) / 1000).toFixed(1)}s/${options.timeSeconds}s  runs ${runs}  commands ${commands}`);
    },
  };
  const context = { label, fault: () => provider.fault };
  try {
    return options.pool === 'host' ? validateHostPoolProvider(provider.host, options.mode, campaignOptions, context) : validateProvider(provider, options.mode, campaignOptions, context);
  } finally {
    progress.done();
  }
}

await runMain('pnpm validate', main);
