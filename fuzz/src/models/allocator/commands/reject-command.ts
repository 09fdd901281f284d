import type { FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';
import fc from 'fast-check';
import { z } from 'zod';
import type { AllocatorRuleId } from '../../../contract/allocator-rules.js';
import { scopeFeeds } from '../../../contract/report-scope.js';
import { kLedgerFree, kLedgerQueued } from '../../../ledger/page-ledger.js';
import { dataIntSchema } from '../../command-bounds.js';
import { kPickArbitrary } from '../allocator-commands.js';
import type { AllocatorModel } from '../allocator-model-state.js';
import { rowView, type Holding, type RowView } from '../holding.js';
import { afterCommand, expectRejected } from '../model-io.js';
import { allocatorCommand } from './command.js';

/** A bad call the contract says must throw and change nothing. */
interface RejectKind {
  /** The CONTRACT.md rule that says this call must be refused. */
  readonly contract: AllocatorRuleId;
  /** Rejected only with `checks: true`; with checks off it is undefined behaviour and never fed. */
  readonly checksOnly: boolean;
  /** The shortest growable row the call is built from, or null when it needs none. */
  readonly rowLenMin: ((pageSize: number) => number) | null;
  /** Whether the model's state lets this bad call be built (beyond the row). Pure. */
  applicable(m: Readonly<AllocatorModel>): boolean;
  /** The bad call, from the model state, the resolved row (empty when none is needed) and the drawn `n >= 1`. */
  build(m: Readonly<AllocatorModel>, row: RowView, n: number): (a: PageAllocator) => unknown;
}

const always = (): boolean => true;
const seg = (row: RowView, start: number, end: number): FreeSegment => ({ indices: row.slots(start, end), startPos: start });
/** An unaligned position in `[1, len)`, drawn from `n`. */
function unalignedPos(len: number, pageSize: number, n: number): number {
  const pos = 1 + (n % (len - 1));
  return pos % pageSize === 0 ? pos - 1 : pos;
}
function pageWithHolder(m: Readonly<AllocatorModel>, holder: number): number {
  for (let page = 1; page <= m.ledger.numPages; page++) if (m.ledger.holderOf(page) === holder) return page;
  return -1;
}

/** The bad inputs of CONTRACT.md (A20–A25), by name. */
export const kRejectKinds = {
  allocNotPageMultiple: {
    contract: 'A20',
    checksOnly: false,
    rowLenMin: null,
    applicable: (m) => m.pageSize >= 2,
    build: (m, _row, n) => (a) => a.alloc(n * m.pageSize + 1 + (n % (m.pageSize - 1))),
  },
  allocNegative: { contract: 'A20', checksOnly: false, rowLenMin: null, applicable: always, build: (m, _row, n) => (a) => a.alloc(-n * m.pageSize) },
  allocFractional: { contract: 'A20', checksOnly: false, rowLenMin: null, applicable: always, build: (m, _row, n) => (a) => a.alloc(n * m.pageSize + 0.5) },
  extendSeqBelowPrefix: {
    contract: 'A21',
    checksOnly: false,
    rowLenMin: () => 1,
    applicable: always,
    build: (_m, row, n) => (a) => a.allocExtend({ prefixLens: [row.length], seqLens: [Math.max(0, row.length - n)], lastLoc: [row.at(row.length - 1)] }),
  },
  extendLengthsDiffer: {
    contract: 'A21',
    checksOnly: false,
    rowLenMin: null,
    applicable: always,
    build: () => (a) => a.allocExtend({ prefixLens: [0, 0], seqLens: [1], lastLoc: [-1, -1] }),
  },
  extendLastLocLengthDiffers: {
    contract: 'A21',
    checksOnly: false,
    rowLenMin: null,
    applicable: always,
    build: () => (a) => a.allocExtend({ prefixLens: [0], seqLens: [1], lastLoc: [-1, -1] }),
  },
  decodeLengthsDiffer: { contract: 'A21', checksOnly: false, rowLenMin: null, applicable: always, build: () => (a) => a.allocDecode({ seqLens: [1, 1], lastLoc: [-1] }) },
  segmentsMeetInsidePage: {
    // The DCP seam: two ranges of one row meeting mid-page, the second start unaligned.
    contract: 'A22',
    checksOnly: false,
    rowLenMin: () => 2,
    applicable: (m) => m.pageSize >= 2,
    build: (m, row, n) => {
      const meet = unalignedPos(row.length, m.pageSize, n);
      return (a) => a.freeSegments([seg(row, 0, meet), seg(row, meet, row.length)]);
    },
  },
  segmentsSharePage: {
    // Aligned starts, but the first segment runs into the page where the second starts (overlap).
    contract: 'A22',
    checksOnly: false,
    rowLenMin: (ps) => ps + 1,
    applicable: always,
    build: (m, row) => (a) => a.freeSegments([seg(row, 0, m.pageSize + 1), seg(row, m.pageSize, row.length)]),
  },
  segmentsOutOfOrder: {
    contract: 'A22',
    checksOnly: false,
    rowLenMin: (ps) => 2 * ps,
    applicable: always,
    build: (m, row) => (a) => a.freeSegments([seg(row, m.pageSize, row.length), seg(row, 0, m.pageSize)]),
  },
  segmentUnalignedLone: {
    contract: 'A22',
    checksOnly: false,
    rowLenMin: () => 2,
    applicable: (m) => m.pageSize >= 2,
    build: (m, row, n) => {
      const start = unalignedPos(row.length, m.pageSize, n);
      return (a) => a.freeSegments([seg(row, start, row.length)]);
    },
  },
  nestedGroupBegin: { contract: 'A23', checksOnly: false, rowLenMin: null, applicable: (m) => m.groupOpen, build: () => (a) => a.freeGroupBegin() },
  groupEndWithoutBegin: { contract: 'A23', checksOnly: false, rowLenMin: null, applicable: (m) => !m.groupOpen, build: () => (a) => a.freeGroupEnd() },
  doubleFree: {
    contract: 'A24',
    checksOnly: true,
    rowLenMin: null,
    applicable: (m) => m.ledger.freePageCount > 0,
    build: (m) => {
      const page = pageWithHolder(m, kLedgerFree);
      return (a) => a.free([page * m.pageSize]);
    },
  },
  doubleFreeInGroup: {
    contract: 'A24',
    checksOnly: true,
    rowLenMin: null,
    applicable: (m) => m.groupOpen && m.ledger.queuedPageCount > 0,
    build: (m) => {
      const page = pageWithHolder(m, kLedgerQueued);
      return (a) => a.free([page * m.pageSize + m.pageSize - 1]);
    },
  },
  freePageZero: { contract: 'A24', checksOnly: true, rowLenMin: null, applicable: always, build: (m, _row, n) => (a) => a.free([n % m.pageSize]) },
  freeHeldAndFree: {
    // One call mixing a held page and a free one: nothing may be released.
    contract: 'A24',
    checksOnly: true,
    rowLenMin: () => 1,
    applicable: (m) => m.ledger.freePageCount > 0,
    build: (m, row) => {
      const page = pageWithHolder(m, kLedgerFree);
      return (a) => a.free([row.at(0), page * m.pageSize]);
    },
  },
  freeOutsidePool: {
    // The first slot past the pool, `(numPages + 1) × pageSize` (n = 1), a few past it, or the int32 maximum.
    contract: 'A24',
    checksOnly: true,
    rowLenMin: null,
    applicable: always,
    build: (m, _row, n) => {
      const slotEnd = (m.ledger.numPages + 1) * m.pageSize;
      return (a) => a.free([n >= 64 ? 2 ** 31 - 1 : slotEnd + n - 1]);
    },
  },
  freeNegativeSlot: { contract: 'A24', checksOnly: true, rowLenMin: null, applicable: always, build: (_m, _row, n) => (a) => a.free([-n]) },
  segmentsFreePage: {
    // A24 through freeSegments: one aligned segment covering a free page.
    contract: 'A24',
    checksOnly: true,
    rowLenMin: null,
    applicable: (m) => m.ledger.freePageCount > 0,
    build: (m) => {
      const page = pageWithHolder(m, kLedgerFree);
      const indices = Int32Array.from({ length: m.pageSize }, (_, o) => page * m.pageSize + o);
      return (a) => a.freeSegments([{ indices, startPos: 0 }]);
    },
  },
  segmentsPageTwice: {
    // Two page-disjoint segments by position that name the same held page: the second gives back a page given back already.
    contract: 'A24',
    checksOnly: true,
    rowLenMin: () => 1,
    applicable: always,
    build: (m, row) => {
      const blockEnd = Math.min(m.pageSize, row.length);
      return (a) => a.freeSegments([{ indices: row.slots(0, blockEnd), startPos: 0 }, { indices: row.slots(0, blockEnd), startPos: m.pageSize }]);
    },
  },
  lastLocMismatch: {
    contract: 'A25',
    checksOnly: true,
    rowLenMin: () => 1,
    applicable: (m) => m.pageSize >= 2,
    build: (m, row, n) => {
      const last = row.at(row.length - 1) + 1 + (n % (m.pageSize - 1));
      return (a) => a.allocExtend({ prefixLens: [row.length], seqLens: [row.length + 1], lastLoc: [last] });
    },
  },
  lastLocNotMinusOne: {
    contract: 'A25',
    checksOnly: true,
    rowLenMin: null,
    applicable: always,
    build: (_m, _row, n) => (a) => a.allocExtend({ prefixLens: [0], seqLens: [1], lastLoc: [n] }),
  },
  decodeLastLocMismatch: {
    contract: 'A25',
    checksOnly: true,
    rowLenMin: () => 1,
    applicable: (m) => m.pageSize >= 2,
    build: (m, row, n) => {
      const last = row.at(row.length - 1) + 1 + (n % (m.pageSize - 1));
      return (a) => a.allocDecode({ seqLens: [row.length + 1], lastLoc: [last] });
    },
  },
  decodeLastLocNotMinusOne: { contract: 'A25', checksOnly: true, rowLenMin: null, applicable: always, build: (_m, _row, n) => (a) => a.allocDecode({ seqLens: [1], lastLoc: [n] }) },
} satisfies Record<string, RejectKind>;

export type RejectKindName = keyof typeof kRejectKinds;
export const kRejectKindNames = Object.keys(kRejectKinds) as RejectKindName[];

/** Which rows `kind` can pick: growable ones at least its minimum length; null when it picks none. */
function rowTestFor(m: Readonly<AllocatorModel>, kind: RejectKind): ((h: Holding) => boolean) | null {
  const minLen = kind.rowLenMin;
  if (minLen === null) return null;
  const len = minLen(m.pageSize);
  return (h) => h.growable && h.sizeTokens >= len;
}

/** Whether `kind` has a row to pick, without making the list (for `check`). */
function hasRowFor(m: Readonly<AllocatorModel>, kind: RejectKind): boolean {
  const test = rowTestFor(m, kind);
  return test !== null && m.live.some(test);
}

function rowsFor(m: Readonly<AllocatorModel>, kind: RejectKind): Holding[] {
  const test = rowTestFor(m, kind);
  return test === null ? [] : m.live.filter(test);
}

/** `reject`'s `n`: the reject kinds build their bad call from `n >= 1`. */
const rejectNSchema = dataIntSchema.min(1);

/** A bad call that must be rejected with nothing changed (CONTRACT.md, A20–A25). */
export const reject = allocatorCommand({
  name: 'reject',
  args: z.tuple([z.enum(kRejectKindNames as [RejectKindName, ...RejectKindName[]]), dataIntSchema, rejectNSchema]),
  draws: [
    {
      family: 'reject',
      arbitrary: (_g, o) => {
        // A per-rule report draws only the kinds of the rule it feeds, and none when it feeds another.
        const kinds = kRejectKindNames.filter((kind) => scopeFeeds(o.scope, kRejectKinds[kind].contract));
        return kinds.length === 0 ? null : fc.tuple(fc.constantFrom(...kinds), kPickArbitrary, fc.integer({ min: 1, max: 64 }));
      },
    },
  ],
  check(m, [kindName]) {
    const kind: RejectKind = kRejectKinds[kindName];
    return (!kind.checksOnly || m.geometry.checks) && kind.applicable(m) && (kind.rowLenMin === null || hasRowFor(m, kind));
  },
  run(m, r, [kindName, pick, n], op) {
    const kind: RejectKind = kRejectKinds[kindName];
    m.onFed(kind.contract);
    const rows = rowsFor(m, kind);
    const row = rowView(rows.length === 0 ? null : (rows[pick % rows.length] as Holding), m.pageSize);
    // A24's choice: inside an open group a bad give-back may be accepted now and refused at the group's end.
    expectRejected(m, r, op, kind.build(m, row, n), kind.contract, kind.contract === 'A24');
    afterCommand(m, r, op);
  },
});
