import type { FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';
import { kLedgerFree, kLedgerQueued } from '../../../ledger/page-ledger.js';
import type { AllocatorModel, AllocatorReal, Holding } from '../allocator-model-state.js';
import { afterCommand, expectRejected } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import type { AllocatorRuleId } from '../../../contract/allocator-rules.js';
import { printCall, type CommandData } from '../../command-data.js';

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
  build(m: Readonly<AllocatorModel>, row: readonly number[], n: number): (a: PageAllocator) => unknown;
}

const always = (): boolean => true;
const seg = (row: readonly number[], start: number, end: number): FreeSegment => ({ indices: Int32Array.from(row.slice(start, end)), startPos: start });
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
    build: (_m, row, n) => (a) => a.allocExtend({ prefixLens: [row.length], seqLens: [Math.max(0, row.length - n)], lastLoc: [row[row.length - 1] as number] }),
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
      return (a) => a.free([row[0] as number, page * m.pageSize]);
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
      const block = row.slice(0, Math.min(m.pageSize, row.length));
      return (a) => a.freeSegments([{ indices: Int32Array.from(block), startPos: 0 }, { indices: Int32Array.from(block), startPos: m.pageSize }]);
    },
  },
  lastLocMismatch: {
    contract: 'A25',
    checksOnly: true,
    rowLenMin: () => 1,
    applicable: (m) => m.pageSize >= 2,
    build: (m, row, n) => {
      const last = (row[row.length - 1] as number) + 1 + (n % (m.pageSize - 1));
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
      const last = (row[row.length - 1] as number) + 1 + (n % (m.pageSize - 1));
      return (a) => a.allocDecode({ seqLens: [row.length + 1], lastLoc: [last] });
    },
  },
  decodeLastLocNotMinusOne: { contract: 'A25', checksOnly: true, rowLenMin: null, applicable: always, build: (_m, _row, n) => (a) => a.allocDecode({ seqLens: [1], lastLoc: [n] }) },
} satisfies Record<string, RejectKind>;

export type RejectKindName = keyof typeof kRejectKinds;
export const kRejectKindNames = Object.keys(kRejectKinds) as RejectKindName[];

function rowsFor(m: Readonly<AllocatorModel>, kind: RejectKind): Holding[] {
  const minLen = kind.rowLenMin;
  return minLen === null ? [] : m.live.filter((h) => h.growable && h.row.length >= minLen(m.pageSize));
}

/** A bad call that must be rejected with nothing changed (CONTRACT.md, A20–A25). */
export class RejectCommand implements AllocatorCommand {
  constructor(
    readonly kind: RejectKindName,
    readonly pick: number,
    readonly n: number,
  ) {}

  check(m: Readonly<AllocatorModel>): boolean {
    const kind: RejectKind = kRejectKinds[this.kind];
    return (!kind.checksOnly || m.geometry.checks) && kind.applicable(m) && (kind.rowLenMin === null || rowsFor(m, kind).length > 0);
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    const op = this.toString();
    const kind: RejectKind = kRejectKinds[this.kind];
    m.onFed(kind.contract);
    const rows = rowsFor(m, kind);
    const row = rows.length === 0 ? [] : (rows[this.pick % rows.length] as Holding).row;
    // A24's choice: inside an open group a bad give-back may be accepted now and refused at the group's end.
    expectRejected(m, r, op, kind.build(m, row, this.n), kind.contract, kind.contract === 'A24');
    afterCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'reject', args: [this.kind, this.pick, this.n] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
