import { z } from 'zod';
import { cloneLive } from '../allocator-model-state.js';
import { afterCommand, mirror, verifyHoldings, verifyQuiet } from '../model-io.js';
import { noArgs } from '../../model-command.js';
import { allocatorCommand } from './command.js';

/** `backupState()`: the model remembers what it knew alongside the snapshot. */
export const backup = allocatorCommand({
  name: 'backup',
  args: z.tuple([]),
  draws: [{ family: 'backup', arbitrary: noArgs }],
  check: (m) => !m.groupOpen,
  run(m, r, _args, op) {
    r.backupState = r.allocator.backupState();
    if (r.shadow !== null) r.shadowBackupState = r.shadow.backupState();
    m.backup = { ledger: m.ledger.snapshot(), live: cloneLive(m.live), nextId: m.nextId };
    afterCommand(m, r, op);
  },
});

/** `restoreState(last backup)`: holdings made since are void, frees since are undone. */
export const restore = allocatorCommand({
  name: 'restore',
  args: z.tuple([]),
  draws: [{ family: 'backup', arbitrary: noArgs }],
  check: (m) => !m.groupOpen && m.backup !== null,
  run(m, r, _args, op) {
    const saved = m.backup;
    if (saved === null) return;
    r.allocator.restoreState(r.backupState);
    if (r.shadow !== null) r.shadow.restoreState(r.shadowBackupState);
    m.ledger.restore(saved.ledger);
    m.live = cloneLive(saved.live);
    // A whole-structure event: every holding is back from the snapshot, so every one is checked.
    verifyHoldings(m, op);
    m.executed++;
    verifyQuiet(m, r, op, true);
  },
});

/** `clear()`: every page free, every holding void, no open group. */
export const clear = allocatorCommand({
  name: 'clear',
  args: z.tuple([]),
  draws: [{ family: 'clear', arbitrary: noArgs }],
  check: () => true,
  run(m, r, _args, op) {
    mirror(r, op, (a) => a.clear());
    m.ledger.reset();
    m.live = [];
    m.groupOpen = false;
    m.deferredBad = [];
    afterCommand(m, r, op);
  },
});
