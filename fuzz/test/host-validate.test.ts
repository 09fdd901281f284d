import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { ConfigError } from '@kvfuzz/allocator-core';
import { HostSlotPool, hostSlotPoolProvider, type HostSlotPoolConfig } from '@kvfuzz/host-pool';
import { describe, expect, it } from 'vitest';
import {
  badConfigOf,
  hostConfigOf,
  hostContractSpec,
  kBadConfigKinds,
  kRejectKinds,
  type BadConfigKind,
  type RejectKind,
} from '../src/models/host-contract/host-contract-model.js';
import { ModelCommand } from '../src/models/model-command.js';
import { validateHostPoolProvider } from '../src/validate/validate-provider.js';
import { kHostContractMutants } from '../mutants/host-pool/contract-catalogue.js';
import { runCli } from './support/run-cli.js';

const kFuzzDir = fileURLToPath(new URL('..', import.meta.url));
/** The bound: every planted bug, and every finding of the engine-like stand-in, is caught within this. */
const kDetectMsMax = 10_000;
/** Runs sampled to see what the host contract model feeds. */
const kSampleRuns = 2_000;

const validate = (...args: string[]) => runCli('validate.ts', args);
const standIn = (...args: string[]): string => ['python3', `${kFuzzDir}test/fixtures/host-pool-unchecked-like.py`, ...args].join(' ');

describe('fuzz:validate,host-feeds', () => {
  it('feeds every input the contract says must be refused, configurations included, and the empty request', () => {
    const runs = fc.sample(hostContractSpec(hostSlotPoolProvider, 'contract').arbitrary, { seed: 1, numRuns: kSampleRuns });
    const rejects = new Set<RejectKind>();
    const configs = new Set<BadConfigKind>();
    let emptyRequests = 0;
    let badConfigRuns = 0;
    for (const [g, commands] of runs) {
      for (const wrapped of commands) {
        // fast-check hands the commands over wrapped; its wrapper keeps the command as `cmd`.
        const c = 'cmd' in wrapped ? (wrapped as { cmd: unknown }).cmd : wrapped;
        if (c instanceof ModelCommand && c.definition.name === 'hostReject') rejects.add(c.args[0] as RejectKind);
      }
      if (g.badConfig !== null) {
        configs.add(g.badConfig);
        badConfigRuns++;
      }
      if (hostConfigOf(g).sizeTokens === 0) emptyRequests++;
    }
    expect([...rejects].sort()).toEqual([...kRejectKinds].sort());
    expect([...configs].sort()).toEqual([...kBadConfigKinds].sort());
    // Low frequency: most runs go straight to their commands.
    expect(badConfigRuns).toBeGreaterThan(kSampleRuns / 20);
    expect(badConfigRuns).toBeLessThan(kSampleRuns / 4);
    expect(emptyRequests).toBeGreaterThan(0);
  });

  it.each([
    ['no DCP', { sizeTokens: 0, pageSize: 1, dcpSize: 1, checks: true }],
    ['kernel 2 × DCP 4', { sizeTokens: 37, pageSize: 8, dcpSize: 4, checks: false }],
  ] as const)('every bad configuration is one the reference refuses (%s), and the valid one passes', (_what, valid: HostSlotPoolConfig) => {
    expect(() => new HostSlotPool(valid)).not.toThrow();
    for (const kind of kBadConfigKinds) expect(() => new HostSlotPool(badConfigOf(kind, valid).config), kind).toThrow(ConfigError);
  });

  it.each(['contract', 'exact'] as const)('passes the reference host pool in %s mode', (mode) => {
    const result = validateHostPoolProvider(hostSlotPoolProvider, mode, { seed: (Math.random() * 0x7fffffff) | 0, numRuns: Number.MAX_SAFE_INTEGER, timeLimitMs: 2_000 });
    expect(result.verdict, result.text).toBe('pass');
    expect(result.report.runs).toBeGreaterThan(100);
  });

  it('plants a bug for each kind of input that must be refused, each named by its rule', () => {
    expect(new Set(kHostContractMutants.map((m) => m.rule))).toEqual(new Set(['H1', 'H2', 'H9', 'H11', 'H12', 'H13']));
  });
});

// An engine-like host pool (Python list indexing standing in for torch's) over the protocol: each
// of the three findings alone, then all three as the engine has them.
describe('fuzz:validate,host-engine-findings', () => {
  it.each([
    ['repeated-slot', 'H13', /free\(\[[\d, ]+\]\) must be refused \(slot \d+ is named twice\), but the host pool accepted it/],
    ['negative-slot', 'H13', /free\(\[[-\d, ]+\]\) must be refused \(slot -\d+ is negative; negative indexing would take held slot \d+\), but the host pool accepted it/],
    ['negative-alloc', 'H12', /alloc\(-\d+\) must be refused \(size -\d+ is negative\), but the host pool accepted it and returned \d+ slots/],
  ])('reports the finding %s as %s within 10 s, naming the values', (finding, rule, message) => {
    const r = validate('--pool', 'host', '--cmd', standIn('--finding', finding), '--time', String(kDetectMsMax / 1000));
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(`breaks ${rule} (CONTRACT.md)`);
    expect(r.stdout).toMatch(message);
    expect(Number(/after (\d+\.\d+)s/.exec(r.stdout)?.[1]) * 1000).toBeLessThan(kDetectMsMax);
  });

  it('reports the engine-like pool with all three as a violation of H12 or H13', () => {
    const r = validate('--pool', 'host', '--cmd', standIn(), '--time', String(kDetectMsMax / 1000));
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/breaks H1[23] \(CONTRACT\.md\)/);
  });
});
