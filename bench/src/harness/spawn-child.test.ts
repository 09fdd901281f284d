import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { casesOfFile } from './bench-files.js';
import { bundleChildren } from './child-bundles.js';
import type { ChildStart } from './child-protocol.js';
import { startChild } from './spawn-child.js';
import type { Pinning } from './pinning.js';

const noPin: Pinning = { used: false, cpu: null, prefix: [], note: 'not pinned: test' };
const kFile = 'host-pool/alloc-free.bench.ts';
const kContext = { kvBytesPerToken: 12_288 };
// A folder of the test's own, so that a `pnpm bench` running meanwhile keeps its bundles (under bench/, where mitata resolves).
const kDir = fileURLToPath(new URL(`../../out/children-test-${process.pid}/`, import.meta.url));
afterAll(() => rmSync(kDir, { recursive: true, force: true }));

describe('bench:harness,child', () => {
  it('a bundled child of a real bench file sets up and times its case, in its own variant', async () => {
    await bundleChildren([kFile], kDir);
    const [c] = await casesOfFile(kFile, true);
    if (c === undefined) throw new Error(`${kFile} has no quick case`);
    for (const variant of ['checks-off', 'checks-on'] as const) {
      const start: ChildStart = { file: kFile, variant, cases: [{ name: c.name, pairIndex: c.pairIndex, pointIndex: c.pointIndex }], warmupMs: 5, aa: false, context: kContext };
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

  it('a child asked for a case its file lacks fails with the reason', async () => {
    await bundleChildren([kFile], kDir);
    const start: ChildStart = { file: kFile, variant: 'checks-off', cases: [], warmupMs: 5, aa: false, context: kContext };
    const child = await startChild(start, noPin, kDir);
    await expect(child.setup(3)).rejects.toThrow(/host-pool\/alloc-free\.bench\.ts has no case 3/);
    await child.close();
  });

  it("the run's context reaches the copy cycle's setup: a KV size it refuses fails the child with the reason", async () => {
    const file = 'host-pool/kv-copy.bench.ts';
    await bundleChildren([file], kDir);
    const [c] = await casesOfFile(file, true);
    if (c === undefined) throw new Error(`${file} has no quick case`);
    const start: ChildStart = { file, variant: 'checks-on', cases: [{ name: c.name, pairIndex: c.pairIndex, pointIndex: c.pointIndex }], warmupMs: 5, aa: false, context: { kvBytesPerToken: 0 } };
    const child = await startChild(start, noPin, kDir);
    await expect(child.setup(0)).rejects.toThrow(/kvBytesPerToken 0 is not an integer/);
    await child.close();
  });
});
