import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { casesOfFile } from './bench-files.js';
import { bundleChildren } from './child-bundles.js';
import type { ChildStart } from './child-protocol.js';
import { startChild } from './spawn-child.js';
import type { Pinning } from './pinning.js';

const noPin: Pinning = { used: false, cpu: null, prefix: [], note: 'not pinned: test' };
const kFile = 'host-pool/alloc-free.bench.ts';
// A folder of the test's own, so that a `pnpm bench` running meanwhile keeps its bundles (under bench/, where mitata resolves).
const kDir = fileURLToPath(new URL(`../../out/children-test-${process.pid}/`, import.meta.url));
afterAll(() => rmSync(kDir, { recursive: true, force: true }));

describe('bench:harness,child', () => {
  it('a bundled child of a real bench file sets up and times its case, in its own variant', async () => {
    await bundleChildren([kFile], kDir);
    const [c] = await casesOfFile(kFile, true);
    if (c === undefined) throw new Error(`${kFile} has no quick case`);
    for (const variant of ['checks-off', 'checks-on'] as const) {
      const start: ChildStart = { file: kFile, variant, cases: [{ name: c.name, pairIndex: c.pairIndex, pointIndex: c.pointIndex }], warmupMs: 5, aa: false };
      const child = await startChild(start, noPin, kDir);
      try {
        expect(child.checks).toBe(variant === 'checks-on');
        expect(child.empty.p50Ns).toBeGreaterThan(0);
        // The warm-up runs until V8 has compiled the timed function with TurboFan (tier-probe.ts).
        const warmup = await child.setup(0);
        expect(warmup.optimized).toBe(true);
        expect(warmup.ms).toBeGreaterThanOrEqual(5);
        const stats = await child.measure(0, 5);
        // A host-pool cycle (32 allocs and frees) takes microseconds; the empty function, nanoseconds.
        expect(stats.p50Ns).toBeGreaterThan(10 * child.empty.p50Ns);
        expect(stats.samples).toBeGreaterThan(0);
      } finally {
        await child.close();
      }
    }
  });

  it('in the modules layout the child imports the packages from their dist/ and times its case', async () => {
    // The packages' dist/ is built before the bench tests run (turbo: test depends on ^build).
    const dir = `${kDir}modules/`;
    await bundleChildren([kFile], dir, 'modules');
    const bundled = readFileSync(join(dir, 'host-pool.alloc-free.mjs'), 'utf8');
    expect(bundled).toMatch(/from "@kvfuzz\/host-pool"/);
    expect(bundled).not.toContain('class HostSlotPool');
    const [c] = await casesOfFile(kFile, true);
    if (c === undefined) throw new Error(`${kFile} has no quick case`);
    const start: ChildStart = { file: kFile, variant: 'checks-on', cases: [{ name: c.name, pairIndex: c.pairIndex, pointIndex: c.pointIndex }], warmupMs: 5, aa: false };
    const child = await startChild(start, noPin, dir);
    try {
      expect(child.checks).toBe(true);
      await child.setup(0);
      expect((await child.measure(0, 5)).p50Ns).toBeGreaterThan(10 * child.empty.p50Ns);
    } finally {
      await child.close();
    }
  });

  it('a child asked for a case its file lacks fails with the reason', async () => {
    await bundleChildren([kFile], kDir);
    const start: ChildStart = { file: kFile, variant: 'checks-off', cases: [], warmupMs: 5, aa: false };
    const child = await startChild(start, noPin, kDir);
    await expect(child.setup(3)).rejects.toThrow(/host-pool\/alloc-free\.bench\.ts has no case 3/);
    await child.close();
  });
});
