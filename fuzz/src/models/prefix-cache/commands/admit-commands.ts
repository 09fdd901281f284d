import fc from 'fast-check';
import { z } from 'zod';
import { dataIntSchema, kDataListMax } from '../../command-bounds.js';
import { kBurstSizeMax } from '../prefix-commands.js';
import { afterPrefixCommand } from '../prefix-model-io.js';
import { capArbitrary, capSchema, resolveCap } from './cap-spec.js';
import { prefixCommand } from './command.js';
import { admitRequest, finishRequests, prefillChunk } from './lifecycle.js';
import { shapeArbitrary, shapeSchema, type PromptShape } from './prompt-shape.js';

/** A new request whose prompt starts with a shared prefix (radix hits, splits, duplicate frees). */
export const admit = prefixCommand({
  name: 'admit',
  args: z.tuple([shapeSchema]),
  draws: [{ family: 'admit', weight: 2, arbitrary: (g) => shapeArbitrary(g).map((shape): [PromptShape] => [shape]) }],
  check: () => true,
  run(m, r, [shape], op) {
    admitRequest(m, r, shape, op);
    afterPrefixCommand(m, r, op);
  },
});

/**
 * The MMLU-style load of the seed: `count` requests with one prompt shape are admitted, prefilled
 * in one chunk each, and all finish together (in one free group when the geometry groups finishes)
 * with the same cap.
 */
export const burst = prefixCommand({
  name: 'burst',
  args: z.tuple([shapeSchema, dataIntSchema.max(kDataListMax), capSchema]),
  draws: [
    {
      family: 'burst',
      arbitrary: (g) => fc.tuple(shapeArbitrary(g), fc.integer({ min: 2, max: kBurstSizeMax }), capArbitrary),
    },
  ],
  check: () => true,
  run(m, r, [shape, count, cap], op) {
    const requests = [];
    for (let i = 0; i < count; i++) {
      const lr = admitRequest(m, r, shape, op);
      if (lr === null) break;
      requests.push(lr);
      prefillChunk(m, r, lr, lr.promptLen, op);
    }
    finishRequests(m, r, requests, (lr) => resolveCap(cap, lr, m), true, op);
    afterPrefixCommand(m, r, op);
  },
});
