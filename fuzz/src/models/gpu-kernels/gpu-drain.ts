import { LedgerViolation } from '../../ledger/ledger-violation.js';
import { emptyHolding } from '../allocator/holding.js';
import { runLockstepExtend } from './commands/extend-command.js';
import { finishOnBoth } from './commands/finish-command.js';
import type { GpuKernelsModel, GpuKernelsReal } from './gpu-model-state.js';
import { verifyGpuQuiet } from './gpu-model-io.js';

/**
 * The end of every run: the quiet-point checks, then every live request finishes on both sides
 * (through the checked GPU batch free, nothing planted); then every page must be free and given
 * back exactly once per allocation, and one request must take the whole pool — every page once,
 * on both sides alike.
 */
export async function drainGpuKernels(m: GpuKernelsModel, r: GpuKernelsReal): Promise<void> {
  const op = 'drain';
  verifyGpuQuiet(m, r, op);
  for (const h of [...m.live]) await finishOnBoth(m, r, h, [], 'none', op);
  verifyGpuQuiet(m, r, op);
  m.ledger.checkDrained();
  const whole = { holdings: [emptyHolding(m.nextId++)], isNew: [true], tokens: [m.ledger.numPages * m.pageSize] };
  await runLockstepExtend(m, r, whole, 0, `${op}: extend the whole pool`);
  const h = m.live[0];
  if (h === undefined || m.ledger.freePageCount !== 0) {
    throw new LedgerViolation('leak', `after the drain one request could not take the whole pool (${m.ledger.freePageCount} pages left free)`);
  }
  await finishOnBoth(m, r, h, [], 'none', op);
  verifyGpuQuiet(m, r, op);
  m.ledger.checkDrained();
}
