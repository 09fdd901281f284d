import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referenceProvider, type AllocatorConfig } from '@kvfuzz/allocator-core';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { kAllocatorRules } from '../src/contract/allocator-rules.js';
import { kHostRules } from '../src/contract/host-rules.js';
import { ForwardingAllocator } from '../src/models/allocator/forwarding-allocator.js';
import { reportProvider } from '../src/validate/validate-provider.js';
import { runCli } from './support/run-cli.js';

const kFuzzDir = fileURLToPath(new URL('..', import.meta.url));
const validate = (...args: string[]) => runCli('validate.ts', args);
const tmp = (name: string): string => join(mkdtempSync(join(tmpdir(), 'kvfuzz-report-')), name);

interface ReportJson {
  readonly kvfuzz: string;
  readonly rules: readonly { readonly id: string; readonly title: string; readonly status: string; readonly runs: number; readonly counterexample?: { readonly program: readonly string[]; readonly transcript: readonly string[] | null } }[];
}

/** Each JUnit test case's name, after checking the document parses. */
function junitCases(xml: string): string[] {
  const names: string[] = [];
  const parser = new SaxesParser();
  parser.on('error', (e) => {
    throw e;
  });
  parser.on('opentag', (tag) => {
    if (tag.name === 'testcase') names.push(String(tag.attributes['name']));
  });
  parser.write(xml).close();
  return names;
}

/** The reference, except that a negative alloc hands out nothing instead of being refused (A20 broken, nothing else). */
class AcceptsNegativeAlloc extends ForwardingAllocator {
  override alloc(needSize: number): Int32Array | null {
    return needSize < 0 ? new Int32Array(0) : this.inner.alloc(needSize);
  }
}

describe('fuzz:cli,validate-report', () => {
  it('gives a verdict per rule: a violated refusal does not hide the valid traffic or the other refusals', () => {
    const provider = { name: 'accepts-negative-alloc', create: (config: AllocatorConfig) => new AcceptsNegativeAlloc(referenceProvider.create(config)) };
    const report = reportProvider({ pool: 'allocator', allocator: provider }, 'contract', { seed: 5, numRuns: Number.MAX_SAFE_INTEGER, timeLimitMs: 6_000 });
    const status = Object.fromEntries(report.verdicts.map((v) => [v.id, v.status]));
    expect(status['A20']).toBe('violated');
    expect(report.verdicts.find((v) => v.id === 'A20')?.counterexample?.program.join('\n')).toMatch(/reject\('allocNegative'/);
    for (const id of ['A1', 'A6', 'A11', 'A16', 'A21', 'A22', 'A23', 'A24', 'A25']) expect(status[id], id).toBe('holds');
    expect(status['A19']).toBe('not-applicable');
    expect(report.fault).toBeNull();
  });

  it('reports the Python example allocator rule by rule, with JSON and JUnit (--cmd)', () => {
    const json = tmp('report.json');
    const junit = tmp('report.xml');
    const r = validate('--cmd', `python3 ${kFuzzDir}examples/fifo_allocator.py`, '--report', '--time', '6', '--seed', '3', '--json', json, '--junit', junit);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^rule +status +runs +level +statement \(CONTRACT\.md\)$/m);
    expect(r.stdout).toMatch(/^A24 +holds +\d+ +MUST refuse +giving back a slot of a page that is not held/m);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^fifo-python: 24 rules hold, 0 violated, 1 not applicable — \d+ runs/);
    const doc = JSON.parse(readFileSync(json, 'utf8')) as ReportJson;
    expect(doc.kvfuzz).toBe('validate-report/1');
    expect(doc.rules.map((rule) => rule.id)).toEqual(kAllocatorRules.map((rule) => rule.id));
    expect(doc.rules.find((rule) => rule.id === 'A1')?.title).toBe(kAllocatorRules[0].title);
    expect(junitCases(readFileSync(junit, 'utf8'))).toEqual(kAllocatorRules.map((rule) => `${rule.id} ${rule.title}`));
  });

  it('names each finding of an unchecked host pool with its counterexample and transcript (--pool host, --cmd)', () => {
    const json = tmp('host.json');
    const r = validate('--pool', 'host', '--cmd', `python3 ${kFuzzDir}test/fixtures/host-pool-unchecked-like.py`, '--report', '--time', '6', '--seed', '2', '--json', json);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^H12 +violated/m);
    expect(r.stdout).toMatch(/^H13 +violated/m);
    expect(r.stdout).toMatch(/^H4 +holds/m);
    expect(r.stdout).toMatch(/^H13 violated \(in the H13 inputs\):$/m);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/: 10 rules hold, 2 violated \(H12, H13\), 1 not applicable — /);
    const doc = JSON.parse(readFileSync(json, 'utf8')) as ReportJson;
    expect(doc.rules.map((rule) => rule.id)).toEqual(kHostRules.map((rule) => rule.id));
    const h14 = doc.rules.find((rule) => rule.id === 'H13');
    expect(h14?.status).toBe('violated');
    expect(h14?.counterexample?.transcript?.at(-2)).toMatch(/^→ \{"op":"hostFree"/);
  });

  it('reports a module provider too: its planted bug under its rule, the rest holding', () => {
    const r = validate('mutants/allocator/providers/nested-begin-resets.ts', '--report', '--time', '8', '--seed', '4');
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^A23 +violated/m);
    expect(r.stdout).toMatch(/^A20 +holds/m);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^nested-begin-resets: \d+ rules hold, \d+ violated \([^)]*A23[^)]*\), 1 not applicable/);
  });

  it('writes one JUnit test case naming the rule without --report', () => {
    const junit = tmp('one.xml');
    const r = validate('mutants/allocator/providers/nested-begin-resets.ts', '--time', '8', '--seed', '4', '--junit', junit);
    expect(r.status).toBe(1);
    const xml = readFileSync(junit, 'utf8');
    expect(junitCases(xml)).toEqual(['contract nested-begin-resets keeps CONTRACT.md']);
    expect(xml).toMatch(/<failure message="contract: nested-begin-resets keeps CONTRACT\.md" type="contract">A23 \(freeGroupBegin inside an open group/);
  });
});
