import fc from 'fast-check';
import { z } from 'zod';
import { dataIntSchema, dataListSchema, dataTokensSchema } from '../../command-bounds.js';
import { prefixPageSizeOf, tokensArbitrary } from '../geometry.js';
import { kPickArbitrary } from '../prefix-commands.js';
import { inDecode, inPrefill, liveAt, touch } from '../live-set.js';
import { afterPrefixCommand, checkNullIsShort, evictShortfall, writeContent } from '../prefix-model-io.js';
import type { LiveRequest } from '../prefix-model-state.js';
import { prefixCommand } from './command.js';
import { generate, prefillChunk } from './lifecycle.js';

/** One chunk of a prefilling request (chunked prefill caches its progress). */
export const prefill = prefixCommand({
  name: 'prefill',
  args: z.tuple([dataIntSchema, dataTokensSchema]),
  draws: [{ family: 'prefill', weight: 2, arbitrary: (g) => fc.tuple(kPickArbitrary, tokensArbitrary(g, 2).map((n) => Math.max(1, n))) }],
  check: (m) => m.live.some(inPrefill),
  run(m, r, [pick, chunk], op) {
    const lr = liveAt(m, pick, inPrefill);
    if (lr !== null) prefillChunk(m, r, lr, chunk, op);
    afterPrefixCommand(m, r, op);
  },
});

/**
 * A decode step for several requests: those with speculative slots ahead commit into them; the
 * others take a new slot in one `allocDecode` batch (some cross into a new page).
 */
export const decode = prefixCommand({
  name: 'decode',
  args: z.tuple([dataListSchema(dataIntSchema)]),
  draws: [{ family: 'decode', weight: 2, arbitrary: () => fc.array(kPickArbitrary, { minLength: 1, maxLength: 6 }).map((picks): [number[]] => [picks]) }],
  check: (m) => m.live.some(inDecode),
  run(m, r, [picks], op) {
    const ps = m.pageSize;
    const decoding = m.live.filter(inDecode);
    const batch = [...new Set(picks.map((p) => decoding[p % decoding.length] as LiveRequest))];
    for (const lr of batch) touch(m, lr);
    const needSlot = batch.filter((lr) => lr.committed === lr.allocated);
    let stepped = batch.filter((lr) => lr.committed < lr.allocated);
    if (needSlot.length > 0) {
      evictShortfall(r, needSlot.length * ps);
      const rows = needSlot.map((lr) => r.reqToToken.row(lr.req.kv.reqPoolIdx));
      r.recorder.actor = (needSlot[0] as LiveRequest).req.id;
      const out = r.recorder.allocDecode({
        seqLens: needSlot.map((lr) => lr.allocated + 1),
        lastLoc: needSlot.map((lr, i) => (rows[i] as Int32Array)[lr.allocated - 1] as number),
      });
      if (out === null) {
        checkNullIsShort(m, needSlot.filter((lr) => lr.allocated % ps === 0).length, op);
      } else {
        needSlot.forEach((lr, i) => {
          r.reqToToken.write(lr.req.kv.reqPoolIdx, lr.allocated, [out[i] as number]);
          lr.req.kv.kvAllocatedLen = ++lr.allocated;
        });
        stepped = batch;
      }
    }
    for (const lr of stepped) {
      generate(lr);
      lr.req.kv.kvCommittedLen = ++lr.committed;
      writeContent(m, r, lr, lr.committed - 1, lr.committed);
    }
    afterPrefixCommand(m, r, op);
  },
});

/** Speculative over-allocation: `tokens` slots past the allocated length, not yet committed. */
export const specAlloc = prefixCommand({
  name: 'specAlloc',
  args: z.tuple([dataIntSchema, dataTokensSchema]),
  draws: [{ family: 'spec', arbitrary: (g) => fc.tuple(kPickArbitrary, fc.integer({ min: 1, max: 2 * prefixPageSizeOf(g) })) }],
  check: (m) => m.live.some(inDecode),
  run(m, r, [pick, tokens], op) {
    const ps = m.pageSize;
    const lr = liveAt(m, pick, inDecode);
    if (lr !== null) {
      const pre = lr.allocated;
      const seq = pre + tokens;
      const row = r.reqToToken.row(lr.req.kv.reqPoolIdx);
      evictShortfall(r, tokens + ps);
      r.recorder.actor = lr.req.id;
      const out = r.recorder.allocExtend({ prefixLens: [pre], seqLens: [seq], lastLoc: [row[pre - 1] as number] });
      if (out === null) checkNullIsShort(m, Math.ceil(seq / ps) - Math.ceil(pre / ps), op);
      else {
        r.reqToToken.write(lr.req.kv.reqPoolIdx, pre, out);
        lr.req.kv.kvAllocatedLen = lr.allocated = seq;
      }
    }
    afterPrefixCommand(m, r, op);
  },
});
