import { describe, expect, it } from 'vitest';
import { kGeometries, type Geometry } from '../harness/geometries.js';
import { kCopyBytesMax, kvCopyWorkload, type HostCyclePoint } from './cycle-workload.js';
import { deviceFill, kvCopyCycle } from './kv-copy.bench.js';
import { kKvBytesPerTokenMax, kKvModels, kvBytesPerToken, kLlama32OneB, kQwen25HalfB } from './kv-models.js';

describe('bench:host-pool,kv-copy', () => {
  it('names the models with their KV bytes a token: 2 × layers × KV heads × head dim × 2 B', () => {
    expect(kvBytesPerToken(kQwen25HalfB)).toBe(2 * 24 * 2 * 64 * 2);
    expect(kvBytesPerToken(kLlama32OneB)).toBe(2 * 16 * 8 * 64 * 2);
    expect(kKvModels.map((m) => m.name)).toEqual(['qwen2.5-0.5b', 'llama-3.2-1b']);
  });

  it('keeps a cycle within the copy budget at every geometry, for every model and the largest KV a token', () => {
    for (const g of kGeometries) {
      for (const bytes of [...kKvModels.map(kvBytesPerToken), kKvBytesPerTokenMax, 1]) {
        const w = kvCopyWorkload(g, bytes);
        expect(w.sizeTokens * bytes, `${g.dcp}×${g.kernelPage} ${bytes} B`).toBeLessThanOrEqual(kCopyBytesMax);
        expect(w.sizes.length).toBeGreaterThan(0);
        for (const size of w.sizes) expect(size % w.pageSize).toBe(0);
        expect(w.devicePages.length * w.pageSize).toBe(w.sizeTokens);
        expect([...w.freeOrder].sort((a, b) => a - b)).toEqual([...w.sizes.keys()]);
      }
    }
    expect(() => kvCopyWorkload(kGeometries[0] as (typeof kGeometries)[0], kKvBytesPerTokenMax + 1)).toThrow(/kvBytesPerToken 131073/);
    expect(() => kvCopyWorkload(kGeometries[0] as (typeof kGeometries)[0], 0)).toThrow(RangeError);
  });

  it('copies each device page into the host buffer at the slots alloc handed out, in both variants and both states', () => {
    // 64 bytes a token: buffers of about a MiB, which a busy test machine faults in quickly; the copy is the same code.
    const bytes = 64;
    // The fragmented state at page 1 takes seconds to build here (200 cycles over thousands of runs); 512 stands for it.
    const [page1, page512] = [kGeometries[0], kGeometries[2]] as [Geometry, Geometry];
    const points: HostCyclePoint[] = [{ ...page1, state: 'fresh' }, { ...page512, state: 'fresh' }, { ...page512, state: 'fragmented' }];
    for (const checks of [false, true]) {
      for (const { state, ...g } of points) {
        const cycle = kvCopyCycle({ ...g, state }, checks, { kvBytesPerToken: bytes });
        const op = cycle.op;
        if (op.kind !== 'param') throw new Error('the copy cycle restores its snapshot per call');
        (op.fn as (p: unknown) => void)(op.next());
        (op.fn as (p: unknown) => void)(op.next());
        const { pageSize, devicePages } = cycle.workload;
        let q = 0;
        for (const slots of cycle.held) {
          for (let s = 0; s < slots.length; s += pageSize, q++) {
            // A page's first, middle and last byte: each page is one copy, so these stand for it.
            const first = (slots[s] as number) * bytes;
            const last = first + pageSize * bytes - 1;
            const seen = [first, (first + last) >> 1, last].map((i) => cycle.host[i]);
            expect(seen, `${state} ${g.dcp}×${g.kernelPage} page ${q}`).toEqual(Array(3).fill(deviceFill(devicePages[q] as number)));
          }
        }
        expect(q).toBe(devicePages.length);
      }
    }
  });

  it('refuses a cycle that runs without its own restore', () => {
    const { op } = kvCopyCycle({ ...(kGeometries[0] as (typeof kGeometries)[0]), state: 'fresh' }, true, { kvBytesPerToken: 8 });
    if (op.kind !== 'param') throw new Error('the copy cycle restores its snapshot per call');
    const pool = op.next();
    (op.fn as (p: unknown) => void)(pool);
    expect(() => (op.fn as (p: unknown) => void)(pool)).toThrow(/without its own restore/);
  });
});
