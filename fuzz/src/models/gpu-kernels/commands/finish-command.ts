import { heldPagesOf, slotsOf, type Holding } from '../../allocator/holding.js';
import { kLedgerFree } from '../../../ledger/page-ledger.js';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { scribble } from '../../allocator/model-io.js';
import { afterGpuCommand, heldPages } from '../gpu-model-io.js';
import type { GpuKernelsModel, GpuKernelsReal } from '../gpu-model-state.js';
import type { OpLabel } from '../../../ledger/op-label.js';
import fc from 'fast-check';
import { z } from 'zod';
import { dataIntSchema, dataListSchema } from '../../command-bounds.js';
import { kAgainMax, kPickArbitrary } from '../gpu-commands.js';
import { gpuCommand } from './gpu-command.js';

/** A page nobody holds, planted in a GPU free batch: the checked kernel must report it, never free it. */
export type ForeignPage = 'none' | 'free-page' | 'page-zero' | 'past-end';

/** Every kind of foreign page a `finish` may plant (`'none'` plants nothing). */
export const kForeignPages: readonly ForeignPage[] = ['none', 'free-page', 'page-zero', 'past-end'];

const byValue = (a: number, b: number): number => a - b;

/**
 * Gives a finished request back on both sides: its slots to the CPU allocator's `free`, and its
 * pages — plus planted duplicates and a foreign page — to the checked GPU batch free over a page
 * state that holds exactly the pages the ledger says are held. The GPU must free each of the row's
 * pages once and report every planted page by id; the ledger records what it freed, so a page
 * freed twice or one nobody held is a violation there too.
 *
 * @param again - picks into the row's pages to name a second time (modulo its page count).
 */
export async function finishOnBoth(m: GpuKernelsModel, r: GpuKernelsReal, h: Holding, again: readonly number[], foreign: ForeignPage, op: OpLabel): Promise<void> {
  const pages = heldPagesOf(h);
  const planted = again.map((k) => pages[k % pages.length] as number);
  const stray = strayPage(m, foreign);
  if (stray !== null) planted.push(stray);
  const state = r.kernels.createPageState(m.ledger.numPages, heldPages(m));
  let result;
  try {
    result = await r.kernels.freeBatch(state, [...pages, ...planted], true);
  } finally {
    state.destroy();
  }
  const slots = slotsOf(h, 0, h.sizeTokens, m.pageSize);
  r.allocator.free(slots);
  scribble(slots);
  m.ledger.release(h.id, result.freed, false, op);
  const at = m.live.indexOf(h);
  if (at >= 0) m.live.splice(at, 1);
  if (result.freed.length !== pages.length) {
    throw new LedgerViolation('leak', `${op}: the GPU batch free gave back ${result.freed.length} of the row's ${pages.length} pages [${pages.join(', ')}]`);
  }
  const reported = [...result.reported].sort(byValue);
  const expectReported = [...planted].sort(byValue);
  if (reported.join() !== expectReported.join()) {
    throw new LedgerViolation('gpu-free-report', `${op}: the checked GPU free reported [${reported.join(', ')}], expected the planted pages [${expectReported.join(', ')}]`);
  }
}

function strayPage(m: GpuKernelsModel, foreign: ForeignPage): number | null {
  switch (foreign) {
    case 'none':
      return null;
    case 'page-zero':
      return 0;
    case 'past-end':
      return m.ledger.numPages + 1;
    case 'free-page':
      for (let page = 1; page <= m.ledger.numPages; page++) if (m.ledger.holderOf(page) === kLedgerFree) return page;
      return null;
  }
}

/** A request finishes: its row is given back on the CPU and through the checked GPU batch free, with planted pages. */
export const finish = gpuCommand({
  name: 'finish',
  args: z.tuple([dataIntSchema, z.strictObject({ again: dataListSchema(dataIntSchema), foreign: z.enum(kForeignPages as [ForeignPage, ...ForeignPage[]]) })]),
  draws: [
    {
      family: 'finish',
      arbitrary: () =>
        fc
          .tuple(kPickArbitrary, fc.array(fc.nat({ max: 7 }), { maxLength: kAgainMax }), fc.constantFrom(...kForeignPages))
          .map(([pick, again, foreign]): [number, { again: number[]; foreign: ForeignPage }] => [pick, { again, foreign }]),
    },
  ],
  check: (m) => m.live.length > 0,
  async run(m, r, [pick, { again, foreign }], op) {
    if (m.live.length === 0) return;
    const h = m.live[pick % m.live.length] as Holding;
    await finishOnBoth(m, r, h, again, foreign, op);
    afterGpuCommand(m, r, op);
  },
});
