import { z } from 'zod';
import { afterCommand, endGroupWithDeferredBad, mirror } from '../model-io.js';
import { noArgs } from '../../model-command.js';
import { allocatorCommand } from './command.js';

/** `freeGroupBegin()`: frees are deferred until the group ends. */
export const groupBegin = allocatorCommand({
  name: 'groupBegin',
  args: z.tuple([]),
  draws: [{ family: 'group', arbitrary: noArgs }],
  check: (m) => !m.groupOpen,
  run(m, r, _args, op) {
    mirror(r, op, (a) => a.freeGroupBegin());
    m.groupOpen = true;
    afterCommand(m, r, op);
  },
});

/**
 * `freeGroupEnd()`: everything deferred is released now — or, when the group holds a bad give-back
 * the implementation accepted at the call (A24), the end must be refused with nothing changed,
 * and the model recovers with `clear()`.
 */
export const groupEnd = allocatorCommand({
  name: 'groupEnd',
  args: z.tuple([]),
  draws: [{ family: 'group', arbitrary: noArgs }],
  check: (m) => m.groupOpen,
  run(m, r, _args, op) {
    if (m.deferredBad.length > 0) {
      endGroupWithDeferredBad(m, r, op);
    } else {
      mirror(r, op, (a) => a.freeGroupEnd());
      m.groupOpen = false;
      m.ledger.flushQueued();
    }
    afterCommand(m, r, op);
  },
});
