import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alloc, freeRow } from '../../src/models/allocator/program.js';
import { storeRegression } from '../../src/regressions/regression-store.js';
import { failureReport } from '../support/failure-report.js';
import { runCli } from '../support/run-cli.js';

/** One `pnpm fuzz --replay` of an allocator program: start-up dominates, a second or two. */
const kReplayTimeoutMs = 60_000;
const replay = (file: string) => runCli('fuzz.ts', ['--replay', file], kReplayTimeoutMs);

const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-hostile-regressions-'));
const geometry = { kernelPageSize: 2, dcpSize: 1, poolPages: 3, needSort: false, checks: true };
const campaign = { seed: 5, batch: 0, shard: '0/1' };
const fixed = storeRegression('allocator', failureReport([alloc(4), freeRow(0)], geometry, 'fixed since'), campaign, join(dir, 'store'));
const failing = storeRegression('allocator', failureReport([alloc(3)], geometry, 'alloc(3) at page size 2'), campaign, join(dir, 'store'));
/** A valid format-2 regression (a fixed one), to break one field at a time. */
const valid = JSON.parse(readFileSync(fixed.file, 'utf8')) as Record<string, unknown>;

/** Files the injected code would create if it ever ran. */
const markerWrite = join(tmpdir(), `pwned-${process.pid}-write`);
const markerExec = join(tmpdir(), `pwned-${process.pid}-exec`);
const kInjected = [`alloc(1)); require('node:fs').writeFileSync('${markerWrite}', 'x'); ((1`, `process.getBuiltinModule('node:child_process').execSync('touch ${markerExec}')`];

/** A crafted file: JSON of a value, or raw text or bytes as given. */
function craft(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' || content instanceof Buffer ? content : JSON.stringify(content));
  return file;
}

/** Exit 2, one line on stderr naming the file and the problem, no stack, nothing on stdout. */
function expectRefused(file: string, problem: RegExp): void {
  const r = replay(file);
  expect(r.status, r.stdout + r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^pnpm fuzz: /);
  expect(lines[0]).toContain(basename(file));
  expect(lines[0]).toMatch(problem);
  expect(r.stderr).not.toMatch(/at .*\(/);
  expect(r.stderr).not.toContain('\u001b');
}

describe('fuzz:hostile,regression-files', () => {
  it.each([
    ['a missing file', () => join(dir, 'nope.json'), /nope\.json: cannot be read \(ENOENT\)/],
    ['a directory', () => (mkdirSync(join(dir, 'folder.json'), { recursive: true }), join(dir, 'folder.json')), /folder\.json is a directory, not a regression file/],
    ['a FIFO (which must not hang the read)', () => (execFileSync('mkfifo', [join(dir, 'fifo.json')]), join(dir, 'fifo.json')), /fifo\.json is not a regular file/],
    ['an empty file', () => craft('empty.json', ''), /empty\.json is empty, not a regression file/],
    ['a file over 4 MiB', () => craft('huge.json', `{"kvfuzz":"kvfuzz-regression/2","message":"${'x'.repeat(5 * 1024 * 1024)}"}`), /huge\.json is 52429\d\d bytes, more than a regression file's 4194304/],
    ['bytes that are not UTF-8', () => craft('latin1.json', Buffer.from([0x7b, 0x22, 0xe9, 0xff, 0x22, 0x7d])), /latin1\.json is not UTF-8 text/],
    ['text that is not JSON', () => craft('text.json', 'alloc(4)'), /text\.json is not JSON/],
    ['a JSON array', () => craft('array.json', [valid]), /array\.json is not a kvfuzz regression \(a JSON array, not an object\)/],
    ['another kind of kvfuzz file', () => craft('campaign.json', { ...valid, kvfuzz: 'fuzz-campaign/1' }), /campaign\.json is not a kvfuzz regression \(kvfuzz: "fuzz-campaign\/1"\)/],
    ['a later format', () => craft('v3.json', { ...valid, kvfuzz: 'kvfuzz-regression/3' }), /v3\.json is format "kvfuzz-regression\/3", but this kvfuzz reads kvfuzz-regression\/2/],
    [
      'format 1, its program code that would run',
      () => craft('v1.json', { kvfuzz: 'kvfuzz-regression/1', target: 'allocator', signature: 'leak-0123456789', geometry, program: kInjected }),
      /v1\.json is a kvfuzz-regression\/1 file: it stores its program as code, which kvfuzz no longer runs; run the campaign again to store it as data/,
    ],
    ['a target renamed since', () => craft('renamed.json', { ...valid, target: 'host-pool' }), /renamed\.json: target "host-pool" is now "hicache": set the file's target to "hicache" and move it to hicache\//],
    ['an unknown target', () => craft('target.json', { ...valid, target: 'kernel-zoo' }), /target\.json: target "kernel-zoo" is not one of allocator, prefix-cache, hicache, gpu-kernels/],
    ['an unsafe signature', () => craft('signature.json', { ...valid, signature: '../../etc/passwd' }), /signature\.json: signature: is not 1 to 64 characters of a-z, 0-9 and -/],
    ['a path that is not a fast-check path', () => craft('path.json', { ...valid, path: '1:2; rm -rf /' }), /path\.json: path: is not a fast-check path/],
    ['a seed past int32', () => craft('seed.json', { ...valid, seed: 2 ** 40 }), /seed\.json: seed: Too big/],
    ['an unknown command', () => craft('command.json', { ...valid, commands: [{ op: 'alloc', args: [4] }, { op: 'eval', args: ['1'] }] }), /command\.json: command 1: 'eval' is not a command of this target \(alloc, extend,/],
    ['a command named after an object property', () => craft('proto.json', { ...valid, commands: [{ op: 'constructor', args: [] }] }), /proto\.json: command 0: 'constructor' is not a command of this target/],
    ['a command with args of the wrong type', () => craft('type.json', { ...valid, commands: [{ op: 'alloc', args: ['4'] }] }), /type\.json: command 0 \(alloc\): args\[0\]: Invalid input: expected number, received string/],
    ['a command with args out of range', () => craft('range.json', { ...valid, commands: [{ op: 'alloc', args: [1e12] }] }), /range\.json: command 0 \(alloc\): args\[0\]: Too big: expected number to be <=65536/],
    ['a command with an extra argument', () => craft('arity.json', { ...valid, commands: [{ op: 'freeRow', args: [0, 1] }] }), /arity\.json: command 0 \(freeRow\): args: Too big: expected array to have <=1 items/],
    ['a command with an unknown field', () => craft('field.json', { ...valid, commands: [{ op: 'extendToCapacity', args: [{ pick: 0, short: true, code: 'x' }] }] }), /field\.json: command 0 \(extendToCapacity\): args\[0\]: Unrecognized key: "code"/],
    ['a reject of an unknown kind', () => craft('kind.json', { ...valid, commands: [{ op: 'reject', args: ['formatDisk', 0, 1] }] }), /kind\.json: command 0 \(reject\): args\[0\]: Invalid option: expected one of "allocNotPageMultiple"/],
    ['a batch over the list bound', () => craft('batch.json', { ...valid, commands: [{ op: 'decode', args: [Array.from({ length: 65 }, () => null)] }] }), /batch\.json: command 0 \(decode\): args\[0\]: Too big: expected array to have <=64 items/],
    ['a pool too large', () => craft('pool.json', { ...valid, geometry: { ...geometry, poolPages: 5e8 } }), /pool\.json: geometry\.poolPages: Too big: expected number to be <=300/],
    ['a kernel page size the models never draw', () => craft('kernel.json', { ...valid, geometry: { ...geometry, kernelPageSize: 3 } }), /kernel\.json: geometry\.kernelPageSize: is not one of 1, 2, 4, 8, 16, 64/],
    ['a DCP size of 0', () => craft('dcp.json', { ...valid, geometry: { ...geometry, dcpSize: 0 } }), /dcp\.json: geometry\.dcpSize: is not one of 1, 2, 4, 8, 16/],
    ['a geometry of another target', () => craft('other.json', { ...valid, target: 'gpu-kernels' }), /other\.json: geometry: Unrecognized key: "needSort"/],
  ] as const)('refuses %s with one line and exit 2', (_name, make, problem) => {
    expectRefused(make(), problem);
    expect(existsSync(markerWrite)).toBe(false);
    expect(existsSync(markerExec)).toBe(false);
  });

  it('replays the commands of a format-2 file and never runs its printed program', () => {
    const r = replay(craft('printed-code.json', { ...valid, program: kInjected }));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('  program (2 commands):\n    alloc(4),\n    freeRow(0),\n');
    expect(r.stdout).not.toContain('require(');
    expect(r.stdout).toMatch(/^fixed: the program runs clean$/m);
    expect(existsSync(markerWrite)).toBe(false);
    expect(existsSync(markerExec)).toBe(false);
  });

  it('prints text from the file inert: escapes shown, no line a CI system would obey', () => {
    const message = 'caught \u001b]0;owned\u0007 here\r\u0000\n::error file=x::owned\n  ::warning::too';
    const r = replay(craft('message.json', { ...valid, errorName: 'Ledger\u001b[2JViolation', message, foundAt: '\u202enow' }));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000\u0007\r\u001b\u202e]/);
    expect(r.stdout).toContain('caught \\e]0;owned\\x07 here\\r\\0');
    expect(r.stdout).toContain('Ledger\\e[2JViolation');
    expect(r.stdout).not.toMatch(/^\s*::/m);
  });

  it('exits 0 for a fixed regression, 1 for one that still fails', () => {
    const ok = replay(fixed.file);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^allocator: LedgerViolation — fixed since$/m);
    expect(ok.stdout).toMatch(/^fixed: the program runs clean$/m);
    const bad = replay(failing.file);
    expect(bad.status, bad.stdout + bad.stderr).toBe(1);
    expect(bad.stdout).toContain('    alloc(3),\n');
    expect(bad.stdout).toMatch(/^still fails: ArgumentError: alloc size 3 is not a multiple of the page size 2/m);
  });

  it('says a recorded path that no longer reaches a run, without changing the exit status', () => {
    const r = replay(craft('moved.json', { ...valid, path: '999:999:999' }));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^the recorded seed and path no longer reach a run \(the model's arbitraries changed since it was stored\)$/m);
    expect(r.stderr).toBe('');
  });
});
