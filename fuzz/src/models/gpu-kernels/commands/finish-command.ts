import type { Holding } from '../../allocator/allocator-model-state.js';
import { kLedgerFree } from '../../../ledger/page-ledger.js';
import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { pagesOfRow, scribble } from '../../allocator/model-io.js';
import { afterGpuCommand, heldPages } from '../gpu-model-io.js';
import type { GpuKernelsModel, GpuKernelsReal } from '../gpu-model-state.js';
import type { GpuKernelsCommand } from './gpu-command.js';
import { printCall, type CommandData } from '../../command-data.js';

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
export async function finishOnBoth(m: GpuKernelsModel, r: GpuKernelsReal, h: Holding, again: readonly number[], foreign: ForeignPage, op: string): Promise<void> {
  const pages = pagesOfRow(h.row, m.pageSize);
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
  const slots = Int32Array.from(h.row);
  r.allocator.free(slots);
  scribble(slots);
  m.ledger.release(h.id, result.freed, false, op);
  m.live = m.live.filter((x) => x !== h);
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
export class GpuFinishCommand implements GpuKernelsCommand {
  constructor(
    readonly pick: number,
    readonly again: readonly number[],
    readonly foreign: ForeignPage,
  ) {}

  check(m: Readonly<GpuKernelsModel>): boolean {
    return m.live.length > 0;
  }

  async run(m: GpuKernelsModel, r: GpuKernelsReal): Promise<void> {
    const op = this.toString();
    if (m.live.length === 0) return;
    const h = m.live[this.pick % m.live.length] as Holding;
    await finishOnBoth(m, r, h, this.again, this.foreign, op);
    afterGpuCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'finish', args: [this.pick, { again: [...this.again], foreign: this.foreign }] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
