/**
 * `pnpm validate`: a verdict on an alternative allocator, with a minimal counterexample.
 * Exit 0: no violation within the budget; 1: a violation; 2: bad usage, or the provider could not
 * be loaded, broke the protocol, hung or crashed. Run `pnpm validate --help`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { AllocatorProvider } from '@kvfuzz/allocator-core';
import { isProviderFault } from '../provider-fault.js';
import { loadModuleExport } from '../validate/module-provider.js';
import { startProcessProvider, type ProcessProvider } from '../validate/process-provider.js';
import { validateHostPoolProvider, validateProvider } from '../validate/validate-provider.js';
import type { HostPoolProvider } from '@kvfuzz/host-pool';
import { ProgressLine } from './progress-line.js';
import { UsageError } from './usage-error.js';

const kTimeSecondsDefault = 30;
const kTimeSecondsMax = 86_400;
/** A provider call slower than this is taken as hung (the validator must always return). */
const kCallTimeoutMsDefault = 5_000;

const kHelp = `Usage: pnpm validate PROVIDER [options]
       pnpm validate --cmd "COMMAND" [options]

PROVIDER is an ES module (.js, .mjs, .ts) whose default export is { name, create(config) }
implementing the PageAllocator contract. --cmd runs a program that speaks the JSON-lines
protocol of fuzz/PROTOCOL.md (kvfuzz-allocator/1) on stdin/stdout.

Options:
  --pool KIND          allocator (default): a PageAllocator provider; host: a host (L2) slot
                       pool provider, { name, create(config) } returning a HostPool
  --mode MODE          contract (default): any page choice that keeps the contract;
                       exact: also the reference's page ids and order (drop-in ports)
  --time SECONDS       time budget (default ${kTimeSecondsDefault})
  --seed N             fast-check seed (default: random; printed either way)
  --call-timeout MS    longest wait for one reply from a --cmd provider (default ${kCallTimeoutMsDefault})
  --json FILE          write the verdict as JSON
  -h, --help           this text

Exit status: 0 no violation within the budget, 1 a violation, 2 bad usage or a provider that
could not be loaded, broke the protocol, hung or crashed.`;

interface ValidateOptions {
  readonly pool: 'allocator' | 'host';
  readonly provider: { readonly kind: 'module'; readonly path: string } | { readonly kind: 'cmd'; readonly command: string };
  readonly mode: 'contract' | 'exact';
  readonly timeSeconds: number;
  readonly seed: number;
  readonly callTimeoutMs: number;
  readonly json: string | null;
}

function positive(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) throw new UsageError(`${name} ${raw} is not a number in (0, ${max}]`);
  return value;
}

function parseCli(argv: readonly string[]): ValidateOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        cmd: { type: 'string' },
        mode: { type: 'string', default: 'contract' },
        pool: { type: 'string', default: 'allocator' },
        time: { type: 'string' },
        seed: { type: 'string' },
        'call-timeout': { type: 'string' },
        json: { type: 'string' },
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
  if (v.cmd !== undefined && positionals.length > 0) throw new UsageError('give either PROVIDER or --cmd, not both');
  if (v.cmd === undefined && positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'no PROVIDER given (a module path, or --cmd "COMMAND")' : `one PROVIDER expected, got ${positionals.length}`);
  if (v.cmd !== undefined && v.cmd.trim() === '') throw new UsageError('--cmd is empty');
  if (v.mode !== 'contract' && v.mode !== 'exact') throw new UsageError(`--mode ${v.mode} is not contract or exact`);
  if (v.pool !== 'allocator' && v.pool !== 'host') throw new UsageError(`--pool ${v.pool} is not allocator or host`);
  const seed = v.seed === undefined ? (Math.random() * 0x7fffffff) | 0 : Number(v.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed ${v.seed} is not an integer`);
  return {
    pool: v.pool,
    provider: v.cmd !== undefined ? { kind: 'cmd', command: v.cmd } : { kind: 'module', path: positionals[0] as string },
    mode: v.mode,
    timeSeconds: positive('--time', v.time, kTimeSecondsDefault, kTimeSecondsMax),
    seed: seed | 0,
    callTimeoutMs: positive('--call-timeout', v['call-timeout'], kCallTimeoutMsDefault, 600_000),
    json: v.json ?? null,
  };
}

async function main(argv: readonly string[]): Promise<number> {
  let options;
  try {
    options = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`pnpm validate: ${error.message}\n(see pnpm validate --help)\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${kHelp}\n`);
    return 0;
  }
  const baseDir = process.env['INIT_CWD'] ?? process.cwd();
  let provider: AllocatorProvider | HostPoolProvider;
  let processProvider: ProcessProvider | null = null;
  try {
    if (options.provider.kind === 'module') provider = (await loadModuleExport(options.provider.path, baseDir)) as AllocatorProvider | HostPoolProvider;
    else {
      processProvider = startProcessProvider(options.provider.command, options.callTimeoutMs);
      provider = options.pool === 'host' ? processProvider.host : processProvider;
    }
  } catch (error) {
    if (!isProviderFault(error)) throw error;
    process.stderr.write(`pnpm validate: the provider could not be loaded: ${error.message}\n`);
    return 2;
  }
  const progress = new ProgressLine();
  const started = Date.now();
  let runs = 0;
  let commands = 0;
  const validate = options.pool === 'host' ? (p: typeof provider, mode: 'contract' | 'exact', o: Parameters<typeof validateProvider>[2]) => validateHostPoolProvider(p as HostPoolProvider, mode, o) : (p: typeof provider, mode: 'contract' | 'exact', o: Parameters<typeof validateProvider>[2]) => validateProvider(p as AllocatorProvider, mode, o);
  const result = validate(provider, options.mode, {
    seed: options.seed,
    numRuns: Number.MAX_SAFE_INTEGER,
    timeLimitMs: options.timeSeconds * 1000,
    onRun: (executed) => {
      runs++;
      commands += executed;
      progress.update(() => `[validate ${provider.name}] ${((Date.now() - started) / 1000).toFixed(1)}s/${options.timeSeconds}s  runs ${runs}  commands ${commands}`);
    },
  });
  progress.done();
  processProvider?.close();
  const { report } = result;
  if (options.json !== null) {
    const json = {
      kvfuzz: 'validate/1',
      pool: options.pool,
      provider: result.provider,
      mode: result.mode,
      verdict: result.verdict,
      seed: report.seed,
      runs: report.runs,
      commands: report.commands,
      elapsedMs: Math.round(report.elapsedMs),
      detectMs: report.detectMs === null ? null : Math.round(report.detectMs),
      failure: report.failure,
    };
    writeFileSync(resolve(baseDir, options.json), `${JSON.stringify(json, null, 2)}\n`);
  }
  const tried = `${report.runs} runs, ${report.commands} commands in ${(report.elapsedMs / 1000).toFixed(1)}s (seed ${report.seed}, ${options.pool === 'host' ? 'host pool, ' : ''}${result.mode} mode, checks on and off, bad input included)`;
  if (result.verdict === 'pass') {
    process.stdout.write(`${provider.name}: no violation — ${tried}\n`);
    return 0;
  }
  process.stdout.write(`${result.text}\n\n`);
  if (result.verdict === 'provider-fault') {
    process.stdout.write(`${provider.name}: the provider failed (exit 2) — ${tried}\n`);
    return 2;
  }
  process.stdout.write(`${provider.name}: VIOLATION (${report.failure?.rule}) after ${((report.detectMs ?? 0) / 1000).toFixed(2)}s — ${tried}\n`);
  return 1;
}

process.exitCode = await main(process.argv.slice(2));
