import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadModuleProvider } from '../src/validate/module-provider.js';
import { validateHostPoolProvider, validateProvider } from '../src/validate/validate-provider.js';
import { kHostContractMutants } from '../mutants/host-pool/contract-catalogue.js';
import type { DecodeBatch } from '@kvfuzz/allocator-core';
import { delegatingProvider } from './hostile/fixtures/delegating-provider.js';
import { findAllocatorMutant } from '../mutants/allocator/catalogue.js';
import { runCli } from './support/run-cli.js';

const kFuzzDir = fileURLToPath(new URL('..', import.meta.url));
const kProvidersDir = fileURLToPath(new URL('../mutants/allocator/providers/', import.meta.url));
/** The bound: every planted bug is caught within this. */
const kDetectMsMax = 10_000;

const validate = (...args: string[]) => runCli('validate.ts', args);
const tmpJson = (): string => join(mkdtempSync(join(tmpdir(), 'kvfuzz-')), 'validate.json');

describe('fuzz:cli,validate', () => {
  const providerFiles = readdirSync(kProvidersDir).filter((f) => f.endsWith('.ts'));

  it('has a module provider for each of at least 15 planted bugs', () => {
    expect(providerFiles.length).toBeGreaterThanOrEqual(15);
  });

  it.each(providerFiles)('kills the planted bug in %s within 10 s', async (file) => {
    const provider = await loadModuleProvider(file, kProvidersDir);
    const mode = findAllocatorMutant(provider.name)?.mode ?? 'contract';
    const seed = (Math.random() * 0x7fffffff) | 0;
    const result = validateProvider(provider, mode, { seed, numRuns: Number.MAX_SAFE_INTEGER, timeLimitMs: kDetectMsMax });
    const where = `seed ${seed}: ${result.text || 'survived'}`;
    expect(result.verdict, where).toBe('violation');
    expect(result.report.detectMs ?? Infinity, where).toBeLessThan(kDetectMsMax);
  });

  it.each(['alternatives/bitmap-allocator.ts', 'alternatives/fifo-allocator.ts', 'alternatives/stack-allocator.ts'])('passes the correct alternative %s in contract mode', async (file) => {
    const provider = await loadModuleProvider(file, kFuzzDir);
    const result = validateProvider(provider, 'contract', { seed: (Math.random() * 0x7fffffff) | 0, numRuns: Number.MAX_SAFE_INTEGER, timeLimitMs: 3_000 });
    expect(result.verdict, result.text).toBe('pass');
    expect(result.report.runs).toBeGreaterThan(100);
    // Not a drop-in port: exact mode sees other page ids than the reference's.
    expect(validateProvider(provider, 'exact', { seed: 1, numRuns: 2_000, timeLimitMs: 5_000 }).verdict).toBe('violation');
  });

  it.each([
    ['a plain array from allocDecode', 'return-type', delegatingProvider('plain-decode', (inner) => ({ allocDecode: { value: (b: DecodeBatch) => Array.from(inner.allocDecode(b) ?? []) } }))],
    ['a plain array for an alloc it must reject', 'return-type', delegatingProvider('plain-reject', (inner) => ({ alloc: { value: (n: number) => (n < 0 ? [] : inner.alloc(n)) } }))],
    ['a fractional availableSize', 'return-type', delegatingProvider('fractional', (inner) => ({ availableSize: { value: () => inner.availableSize() + 0.5 } }))],
    ['a wrong numPages', 'geometry', delegatingProvider('num-pages', (inner) => ({ numPages: { get: () => inner.numPages - 1 } }))],
    ['an error named ProviderFault for a valid call', 'KVFUZZ_PROVIDER_FAULT', delegatingProvider('named-fault', () => ({ alloc: { value: () => { throw Object.assign(new Error('pretend'), { name: 'ProviderFault', code: 'KVFUZZ_PROVIDER_FAULT' }); } } }))],
  ] as const)('judges %s in-process a violation (%s), never a crash of the model nor a provider fault', (_what, rule, provider) => {
    const result = validateProvider(provider, 'contract', { seed: 7, numRuns: 200, timeLimitMs: kDetectMsMax });
    expect(result.verdict, result.text).toBe('violation');
    expect(result.report.failure?.rule, result.text).toBe(rule);
  });

  it('passes the Python example provider over the protocol (--cmd)', () => {
    const r = validate('--cmd', `python3 ${kFuzzDir}examples/fifo_allocator.py`, '--time', '4');
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^fifo-python: no violation — [1-9]\d* runs/m);
  });

  it.each(['group-keeps-views.ts', 'backup-live-reference.ts', 'free-without-unique.ts', 'nested-begin-resets.ts'])(
    'kills the planted bug in %s through the CLI, the module isolated in its own process',
    (file) => {
      const r = validate(`mutants/allocator/providers/${file}`, '--time', String(kDetectMsMax / 1000));
      expect(r.status, r.stdout + r.stderr).toBe(1);
      const summary = r.stdout.trimEnd().split('\n').at(-1) ?? '';
      expect(summary).toMatch(new RegExp(`^${file.replace('.ts', '')}: VIOLATION of [AH]\\d+ \\(.+\\) after (\\d+\\.\\d+)s`));
      expect(Number(/after (\d+\.\d+)s/.exec(summary)?.[1]) * 1000).toBeLessThan(kDetectMsMax);
    },
  );

  it('passes the reference module and says what it tried', () => {
    const r = validate('examples/reference-provider.ts', '--time', '2', '--seed', '3');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^reference: no violation — \d+ runs, \d+ commands in [\d.]+s \(seed 3, contract mode, checks on and off, bad input included\)$/m);
  });

  it('exits 1 with the broken invariant and the shrunk program, and writes JSON', () => {
    const json = tmpJson();
    const r = validate('mutants/allocator/providers/group-keeps-reps.ts', '--time', '10', '--json', json);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain('program (');
    expect(r.stdout).toMatch(/group-keeps-reps: VIOLATION of [AH]\d+ \(.+\) after/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { verdict: string; failure: { program: string[] } };
    expect(report.verdict).toBe('violation');
    expect(report.failure.program.length).toBeGreaterThan(0);
  });

  it('catches the order-only bug in exact mode', () => {
    const r = validate('mutants/allocator/providers/append-instead-of-prepend.ts', '--mode', 'exact', '--time', '10');
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/VIOLATION of A19 /);
  });

  it.each([
    [['nope.ts'], /^nope\.ts: the provider could not be loaded \(exit 2\) — nope\.ts: no such file/],
    [['test/fixtures/no-default-export.ts'], /could not be loaded \(exit 2\) — the default export must be \{ name: string, create\(config\) \}/],
    [['--cmd', 'sleep 30', '--start-timeout', '300'], /^sleep 30: the provider could not be started \(exit 2\) — did not answer hello within 300 ms \(--start-timeout\)$/],
    [['--cmd', 'echo not-json'], /could not be started \(exit 2\) — the reply to hello is not JSON: not-json$/],
    [['--cmd', 'exit 0'], /could not be started \(exit 2\) — exited with code 0 while answering hello$/],
  ])('exits 2 when the provider cannot be used: %j', (args, message) => {
    const r = validate(...args);
    expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(message);
  });

  it('writes the JSON verdict of a provider that could not be used, and checks --json before starting', () => {
    const json = tmpJson();
    const r = validate('--cmd', 'exit 0', '--json', json);
    expect(r.status).toBe(2);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { verdict: string; fault: string };
    expect(report.verdict).toBe('provider-fault');
    expect(report.fault).toMatch(/exited with code 0/);
    const missing = validate('examples/reference-provider.ts', '--json', join(tmpdir(), 'kvfuzz-no-such-folder', 'v.json'));
    expect(missing.status).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^pnpm validate: --json .*kvfuzz-no-such-folder\/v\.json: the folder .* does not exist \(see pnpm validate --help\)\n$/);
  });

  it('exits 2 when a provider process crashes mid-run, and shows its stderr', () => {
    // A pinned seed: the fixture accepts every create, so a seed whose first draw is a bad create
    // (seed 41: sizeTokens 0) finds a real A2 violation (exit 1) before the crash.
    const r = validate('--cmd', `python3 ${kFuzzDir}test/fixtures/crash-after-create.py`, '--time', '5', '--seed', '1');
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(2);
    expect(r.stdout).toContain('crash-after-create: its stderr ends:\n  | crash-after-create: giving up');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^crash-after-create: the provider failed \(exit 2\) — exited with code 3 while answering \w+/);
  });

  it('passes the reference host pool and the Python host pool (--pool host), module and --cmd', () => {
    const ref = validate('--pool', 'host', 'examples/reference-host-pool.ts', '--mode', 'exact', '--time', '2');
    expect(ref.status, ref.stderr).toBe(0);
    expect(ref.stdout).toMatch(/^reference: no violation — \d+ runs, \d+ commands in [\d.]+s \(seed \d+, host pool, exact mode/m);
    const py = validate('--pool', 'host', '--cmd', `python3 ${kFuzzDir}examples/host_pool.py`, '--time', '3');
    expect(py.status, py.stdout + py.stderr).toBe(0);
    expect(py.stdout).toMatch(/^host-fifo-python: no violation/m);
  });

  it.each(kHostContractMutants.map((m) => [`${m.name} (${m.rule})`, m] as const))('kills the planted host pool bug %s within 10 s, naming its rule', (_name, mutant) => {
    const seed = (Math.random() * 0x7fffffff) | 0;
    const result = validateHostPoolProvider({ name: mutant.name, create: mutant.create }, mutant.mode, { seed, numRuns: Number.MAX_SAFE_INTEGER, timeLimitMs: kDetectMsMax });
    const where = `seed ${seed}: ${result.text || 'survived'}`;
    expect(result.verdict, where).toBe('violation');
    expect(result.report.detectMs ?? Infinity, where).toBeLessThan(kDetectMsMax);
    expect(result.report.failure?.contractRule, where).toBe(mutant.rule);
  });

  it.each([
    [[], /no PROVIDER given/],
    [['a.ts', 'b.ts'], /one PROVIDER expected, got 2/],
    [['a.ts', '--cmd', 'x'], /give one of PROVIDER, --cmd or --engine/],
    [['--cmd', 'x', '--engine', 'sglang'], /give one of PROVIDER, --cmd or --engine/],
    [['a.ts', '--mode', 'fuzzy'], /--mode "fuzzy" is not contract or exact/],
    [['a.ts', '--time', '0'], /--time "0" is not a number of seconds in \(0, 86400\]/],
    [['a.ts', '--pool', 'gpu'], /--pool "gpu" is not allocator or host/],
    [['a.ts', '--seed', '-1'], /Option '--seed' argument is ambiguous/],
    [['a.ts', '--seed', '1.5'], /--seed "1.5" is not an integer in \[0, 9007199254740991\]/],
    [['a.ts', '--call-timeout', '0'], /--call-timeout "0" is not an integer in \[1, 600000\]/],
    [['a.ts', '--start-timeout', '1e3'], /--start-timeout "1e3" is not an integer in \[1, 600000\]/],
    [['a.ts', '--provider-memory', '8'], /--provider-memory "8" is not an integer in \[32, 65536\]/],
    [['a.ts', '--bogus'], /Unknown option '--bogus'/],
  ])('exits 2 on bad usage %j, with one line', (args, message) => {
    const r = validate(...args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^pnpm validate: .* \(see pnpm validate --help\)\n$/);
    expect(r.stderr).toMatch(message);
  });

  it('prints the seed as given, even past 2^31', () => {
    const r = validate('examples/reference-provider.ts', '--time', '1', '--seed', '9007199254740991');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\(seed 9007199254740991, contract mode/);
  });
});
