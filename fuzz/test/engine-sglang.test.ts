import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

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
