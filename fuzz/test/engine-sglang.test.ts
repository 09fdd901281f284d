import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const kAdapterDir = fileURLToPath(new URL('../../adapters/sglang/', import.meta.url));
/** A stand-in SGLang tree written for the tests: SGLang's module paths, class names and signatures, our own code. */
const kStandIn = join(kAdapterDir, 'test', 'stand-in');
const tmp = (name: string): string => join(mkdtempSync(join(tmpdir(), 'kvfuzz-sglang-')), name);

/** The stand-in copied to a temporary folder, with `edit` applied (a planted bug, a removed file). */
function standInCopy(edit: (root: string) => void): string {
  const root = tmp('stand-in');
  cpSync(kStandIn, root, { recursive: true });
  edit(root);
  return root;
}

interface ReportJson {
  readonly rules: readonly { readonly id: string; readonly status: string }[];
}

function statuses(file: string): Record<string, string> {
  return Object.fromEntries((JSON.parse(readFileSync(file, 'utf8')) as ReportJson).rules.map((r) => [r.id, r.status]));
}

const validate = (args: readonly string[], env: Readonly<Record<string, string>> = {}) => runCli('validate.ts', args, 180_000, env);

/** Exit 2, one line on stderr or stdout naming the problem, no stack. */
function expectRefused(r: ReturnType<typeof validate>, message: RegExp): void {
  expect(r.status, r.stdout + r.stderr).toBe(2);
  const out = `${r.stdout}${r.stderr}`.trim().split('\n');
  expect(out.at(-1)).toMatch(message);
  expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
}

describe('fuzz:cli,engine-usage', () => {
  it.each([
    [['--engine', 'vllm'], /--engine "vllm" is not one of sglang/],
    [['--engine', 'sglang', '--cmd', 'x'], /give one of PROVIDER, --cmd or --engine/],
    [['--engine-src', '/tmp'], /--engine-src needs --engine/],
    [['--engine', 'sglang', '--engine-src', '/nonexistent/sglang'], /--engine-src \/nonexistent\/sglang: no such folder/],
    [['--engine', 'sglang', '--engine-src', 'package.json'], /--engine-src package\.json is not a folder/],
  ])('refuses %j with one line', (args, message) => {
    expectRefused(validate(args), message);
  });

  it('names a missing Python with the way to get it', () => {
    expectRefused(validate(['--engine', 'sglang', '--engine-src', '.'], { KVFUZZ_PYTHON: '/nonexistent/python3' }), /the sglang engine needs Python 3 with torch, and \/nonexistent\/python3 was not found: run bash ci\/setup\.sh as root/);
  });
});

// On Debian's python3 with python3-torch (bash ci/setup.sh installs it): without it these fail naming the fix.
describe('fuzz:cli,engine-sglang', () => {
  it('runs the adapter\'s own Python tests against the stand-in', () => {
    const r = spawnSync('bash', [join(kAdapterDir, 'test', 'run_tests.sh')], { encoding: 'utf8', timeout: 170_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^OK$/m);
  });

  it('reports the stand-in allocator rule by rule: valid traffic holds, the unchecked inputs SGLang accepts are violated', () => {
    const json = tmp('allocator.json');
    const r = validate(['--engine', 'sglang', '--engine-src', kStandIn, '--report', '--time', '12', '--seed', '3', '--json', json]);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    const status = statuses(json);
    for (const id of ['A1', 'A5', 'A6', 'A7', 'A8', 'A9', 'A10', 'A11', 'A12', 'A13', 'A14', 'A15', 'A16', 'A18']) expect(status[id], id).toBe('holds');
    for (const id of ['A20', 'A21']) expect(status[id], id).toBe('violated');
    expect(r.stdout).toMatch(/^A20 violated \(in the A20 inputs\):$/m);
    expect(r.stdout).toMatch(/transcript \(→ sent, ← replied\):/);
  });

  it('reports the stand-in host pool: its slot bookkeeping holds, the inputs it does not refuse are violated', () => {
    const json = tmp('host.json');
    const r = validate(['--engine', 'sglang', '--engine-src', kStandIn, '--pool', 'host', '--report', '--time', '8', '--seed', '3', '--json', json]);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    const status = statuses(json);
    for (const id of ['H1', 'H3', 'H4', 'H5', 'H6', 'H7', 'H8', 'H9', 'H10']) expect(status[id], id).toBe('holds');
    expect(status['H12']).toBe('violated');
    expect(status['H13']).toBe('violated');
  });

  it('agrees with the reference in exact mode on valid traffic (page 1 routing, LIFO reuse, staging)', () => {
    const json = tmp('exact.json');
    const r = validate(['--engine', 'sglang', '--engine-src', kStandIn, '--mode', 'exact', '--report', '--time', '8', '--seed', '5', '--json', json]);
    expect([0, 1]).toContain(r.status);
    expect(statuses(json)['A19']).toBe('holds');
  });

  it('catches a bug planted in the stand-in in valid traffic (a paged free without unique)', () => {
    const root = standInCopy((dir) => {
      const file = join(dir, 'python/sglang/srt/mem_cache/allocator/paged.py');
      const text = readFileSync(file, 'utf8');
      const planted = text.replace('self._release_page_ids(torch.unique(free_index // self.page_size))', 'self._release_page_ids(free_index // self.page_size)');
      expect(planted).not.toBe(text);
      writeFileSync(file, planted);
    });
    const json = tmp('planted.json');
    const r = validate(['--engine', 'sglang', '--engine-src', root, '--report', '--time', '10', '--seed', '3', '--json', json]);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(statuses(json)['A12']).toBe('violated');
    rmSync(root, { recursive: true, force: true });
  });

  it('names a missing file of the tree and exits 2', () => {
    const root = standInCopy((dir) => rmSync(join(dir, 'python/sglang/kernels/ops/memory/allocator.py')));
    expectRefused(validate(['--engine', 'sglang', '--engine-src', root]), /the sglang engine cannot run: .*python\/sglang\/kernels\/ops\/memory\/allocator\.py/);
    rmSync(root, { recursive: true, force: true });
  });
});
