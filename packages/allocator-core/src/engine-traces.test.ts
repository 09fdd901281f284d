import { describe, expect, it } from 'vitest';
import { PagedAllocator } from './paged-allocator.js';
import { ReferenceAllocator } from './reference/reference-allocator.js';
import { loadEngineTraces, type EngineOp } from './test-support/load-engine-traces.js';
import type { AllocatorConfig, PageAllocator } from './types.js';

function apply(allocator: PageAllocator, op: EngineOp): Int32Array | null | void {
  switch (op.kind) {
    case 'alloc':
      return allocator.alloc(op.n);
    case 'extend':
      return allocator.allocExtend({ prefixLens: op.pre, seqLens: op.seq, lastLoc: op.last });
    case 'decode':
      return allocator.allocDecode({ seqLens: op.seq, lastLoc: op.last });
    case 'free':
      return allocator.free(op.idx);
    case 'segments':
      return allocator.freeSegments(op.segs.map((s) => ({ indices: s.idx, startPos: s.start })));
    case 'groupBegin':
      return allocator.freeGroupBegin();
    case 'groupEnd':
      return allocator.freeGroupEnd();
    case 'clear':
      return allocator.clear();
  }
}

const traces = loadEngineTraces();

describe('allocator-core:engine-traces', () => {
  it('holds the 300 recorded traces', () => {
    expect(traces).toHaveLength(300);
  });

  // Valid traffic must come out the same whether the in-line checks watch it or not, from the
  // fast allocator and from the plain reference.
  const kinds: readonly (readonly [string, (config: AllocatorConfig) => PageAllocator])[] = [
    ['PagedAllocator', (config) => new PagedAllocator(config)],
    ['ReferenceAllocator', (config) => new ReferenceAllocator(config)],
  ];
  const cases = kinds.flatMap(([kind, make]) => [false, true].flatMap((checks) => traces.map((trace, i) => [kind, i, checks, trace, make] as const)));
  it.each(cases)('%s replays trace %i identically (checks %s)', (_kind, _i, checks, trace, make) => {
    const pageSize = trace.cfg.kernelPageSize * trace.cfg.dcpSize;
    // The engine floors the size to whole pages; kvfuzz wants that said explicitly.
    const sizeTokens = Math.floor(trace.cfg.sizeTokens / pageSize) * pageSize;
    const allocator = make({ ...trace.cfg, sizeTokens, checks });
    trace.ops.forEach(({ op, out, avail }, step) => {
      const got = apply(allocator, op);
      const where = `step ${step} ${JSON.stringify(op)}`;
      expect(got == null ? null : Array.from(got), where).toEqual(out);
      expect(allocator.availableSize(), where).toBe(avail);
    });
  });
});
