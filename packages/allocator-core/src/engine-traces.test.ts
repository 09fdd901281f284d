import { describe, expect, it } from 'vitest';
import { PagedAllocator } from './paged-allocator.js';
import { loadEngineTraces, type EngineOp } from './test-support/load-engine-traces.js';

function apply(allocator: PagedAllocator, op: EngineOp): Int32Array | null | void {
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

  // Valid traffic must come out the same whether the in-line checks watch it or not.
  const cases = [false, true].flatMap((checks) => traces.map((trace, i) => [i, checks, trace] as const));
  it.each(cases)('trace %i replays identically (checks %s)', (_i, checks, trace) => {
    const pageSize = trace.cfg.kernelPageSize * trace.cfg.dcpSize;
    // The engine floors the size to whole pages; kvfuzz wants that said explicitly.
    const sizeTokens = Math.floor(trace.cfg.sizeTokens / pageSize) * pageSize;
    const allocator = new PagedAllocator({ ...trace.cfg, sizeTokens, checks });
    trace.ops.forEach(({ op, out, avail }, step) => {
      const got = apply(allocator, op);
      const where = `step ${step} ${JSON.stringify(op)}`;
      expect(got == null ? null : Array.from(got), where).toEqual(out);
      expect(allocator.availableSize(), where).toBe(avail);
    });
  });
});
