import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const validate = (...args: string[]) => runCli('validate.ts', args);
const tmpJson = (): string => join(mkdtempSync(join(tmpdir(), 'kvfuzz-')), 'validate.json');
/** Long enough for each planted bug here to be found, shrunk and replayed; they fall in the first runs. */
const kTimeSeconds = '10';

/** The printed transcript: the lines under its heading, unindented, up to the blank line. */
function printedTranscript(stdout: string): string[] {
  const lines = stdout.split('\n');
  const heading = lines.findIndex((line) => line.startsWith('transcript: the shrunk program replayed'));
  if (heading < 0) return [];
  const end = lines.indexOf('', heading);
  return lines.slice(heading + 1, end).map((line) => line.replace(/^ {2}/, ''));
}

/** Checks what every shown transcript holds: the run's create first, requests and replies alternating, a reply last, the summary after it. */
function expectTranscript(stdout: string, create: string): string[] {
  const lines = printedTranscript(stdout);
  expect(lines.length, stdout).toBeGreaterThanOrEqual(2);
  expect(lines.findIndex((line) => line.startsWith(`→ {"op":"${create}"`)), stdout).toBeGreaterThanOrEqual(0);
  lines.forEach((line, i) => expect(line.slice(0, 2), line).toBe(i % 2 === 0 ? '→ ' : '← '));
  const out = stdout.trimEnd().split('\n');
  expect(out.at(-1)).toMatch(/: VIOLATION /);
  expect(out.at(-3)).toBe(`  ${lines.at(-1)}`);
  return lines;
}

describe('fuzz:cli,validate,transcript', () => {
  it('shows a --cmd provider\'s exchange, from create to the accepted bad free, and writes it to --json', () => {
    const json = tmpJson();
    const r = validate('--cmd', 'python3 test/fixtures/lax-free.py', '--time', kTimeSeconds, '--json', json);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    const lines = expectTranscript(r.stdout, 'create');
    // A bad free inside a free group may show only at the group's end, when the pages are given back.
    expect(lines.at(-2)).toMatch(/^→ \{"op":"free(Segments|GroupEnd)?"/);
    expect(lines.at(-1)).toBe('← {"ok":true}');
    const report = JSON.parse(readFileSync(json, 'utf8')) as { verdict: string; transcript: string[] };
    expect(report.verdict).toBe('violation');
    expect(report.transcript).toEqual(lines);
  });

  it('shows a module provider\'s exchange through the module host', () => {
    const r = validate('mutants/allocator/providers/group-keeps-reps.ts', '--time', kTimeSeconds);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expectTranscript(r.stdout, 'create');
  });

  it('shows a host pool provider\'s exchange (--pool host), the accepted bad free last', () => {
    const r = validate('--pool', 'host', '--cmd', 'python3 test/fixtures/host-pool-unchecked.py', '--time', kTimeSeconds);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    const lines = expectTranscript(r.stdout, 'createHost');
    expect(lines.at(-2)).toMatch(/^→ \{"op":"hostFree",/);
    expect(lines.at(-1)).toMatch(/^← \{"ok": true, "count": \d+\}$/);
  });

  it('says the provider is not deterministic instead of showing an exchange that passes', () => {
    const json = tmpJson();
    const r = validate('--cmd', 'python3 test/fixtures/lax-free-once.py', '--time', kTimeSeconds, '--json', json);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).not.toContain('→ {');
    const out = r.stdout.trimEnd().split('\n');
    const note = 'no transcript: the shrunk program passed when replayed once more, so the provider is not deterministic and a transcript would mislead';
    expect(out.at(-3)).toBe(note);
    expect(out.at(-1)).toMatch(/^lax-free-once-python: VIOLATION /);
    expect((JSON.parse(readFileSync(json, 'utf8')) as { transcript: string[] }).transcript).toEqual([note]);
  });
});
