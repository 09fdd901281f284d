import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const fuzz = (args: readonly string[], env: Readonly<Record<string, string>> = {}) => runCli('fuzz.ts', args, 120_000, env);
const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-usage-'));
/** A shard run takes its seed from CI variables: none may leak in from the machine running the tests. */
const kNoCiSeed = { KVFUZZ_SEED: '', GITHUB_RUN_ID: '', CI_PIPELINE_ID: '' };

describe('fuzz:hostile,fuzz-usage', () => {
  it.each([
    [['--seed', ''], /--seed "" is not an integer in \[0, 9007199254740991\]/],
    [['--seed=-1'], /--seed "-1" is not an integer/],
    [['--seed', '-1'], /Option '--seed' argument is ambiguous\. Did you forget/],
    [['--seed', '1e3'], /--seed "1e3" is not an integer/],
    [['--seed', '9007199254740993'], /--seed "9007199254740993" is not an integer/],
    [['--shard', '1/4'], /--shard needs --seed: every shard of a campaign must run the same seed \(or set one of KVFUZZ_SEED, GITHUB_RUN_ID, CI_PIPELINE_ID\)/],
    [['--shard', '1/4', '--seed', '3', '--shard', '0/0'], /--shard "0\/0" is not I\/N/],
    [['--time', ''], /--time "" is not a number of seconds/],
    [['--time', '1e9'], /--time "1e9" is not a number of seconds in \(0, 86400\]/],
    [['--workers', '1000'], /--workers "1000" is not an integer in \[1, 64\]/],
    [['--json', join(dir, 'missing', 'out.json'), '--time', '60'], /--json .*missing\/out\.json: the folder .*missing does not exist/],
    [['--junit', dir, '--time', '60'], /--junit .* is a folder, not a file/],
    [['--replay', ''], /--replay needs a regression file/],
    [['--target', '\u001b]0;owned\u0007'], /--target "\\u001b]0;owned\\u0007" is not a target/],
    [['--mutant', '::error file=x::owned'], /--mutant "::error file=x::owned" is not a mutant/],
    [['--bogus'], /Unknown option '--bogus'/],
  ])('refuses %j with one line and exit 2, before any work', (args, message) => {
    const started = Date.now();
    const r = fuzz(args, kNoCiSeed);
    expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(lines[0]).toMatch(/^pnpm fuzz: .* \(see pnpm fuzz --help\)$/);
    expect(r.stderr).not.toContain('\u001b');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('keeps a seed above 2^32 as itself (no silent wrap)', () => {
    const r = fuzz(['--target', 'allocator', '--time', '0.5', '--workers', '1', '--seed', '4294967297']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^seed 4294967297, shard 0\/1, 1 worker: /);
  });

  it('takes a shard seed from the CI run id and says so', () => {
    const r = fuzz(['--target', 'allocator', '--time', '0.5', '--workers', '1', '--shard', '1/4'], { ...kNoCiSeed, GITHUB_RUN_ID: '12345678901' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^seed 12345678901 \(from GITHUB_RUN_ID\), shard 1\/4, 1 worker: /);
  });

  it('refuses a CI seed that is not an integer, naming the variable', () => {
    const r = fuzz(['--shard', '1/4'], { ...kNoCiSeed, KVFUZZ_SEED: 'tomorrow' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^pnpm fuzz: KVFUZZ_SEED "tomorrow" is not an integer/);
  });
});
