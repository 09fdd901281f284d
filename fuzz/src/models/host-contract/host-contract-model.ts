/**
 * The host pool contract model: what `pnpm validate --pool host` drives an alternative host pool
 * with. Per run a geometry (host page = kernel page × DCP, requested size — 0 included —, checks),
 * at low frequency a configuration that must be refused first (H2), then allocations of whole
 * pages, gives-back of whole holdings or parts of them, clears, and every input the contract says
 * must be refused (H12, and with checks on H13), alone or beside held slots. A slot ledger is the
 * oracle: outputs distinct and unheld, inside the pool, `null` only when the pool is short,
 * `availableSize` exact, the size by the sizing rule (one extra page) read once at creation, a
 * refused call changing nothing (held slots stay held); in exact mode also the reference's slots
 * (its contiguous-run preference).
 */
import fc from 'fast-check';
import { kDcpSizes } from '@kvfuzz/allocator-core';
import { HostSlotPool, hostSlotPoolProvider, type HostPool, type HostPoolProvider, type HostSlotPoolConfig } from '@kvfuzz/host-pool';
import { scopeFeeds, type ReportScope } from '../../contract/report-scope.js';
import { ruleOfError } from '../../contract/rule-of-error.js';
import { LedgerViolation } from '../../ledger/ledger-violation.js';
import { PageLedger } from '../../ledger/page-ledger.js';
import { isProviderFault } from '../../provider-fault.js';
import { describeThrown } from '../../text/describe-thrown.js';
import { kKernelPageSizes, oneOfSchema } from '../allocator/geometry.js';
import { fixedOr } from '../geometry-draws.js';
import type { OpLabel } from '../../ledger/op-label.js';
import { dataIntSchema } from '../command-bounds.js';
import { defineCommand, noArgs, type CommandBuilder, type CommandDefinition } from '../model-command.js';
import { formatModelFailure, modelSpec, runModel, type ModelDefinition } from '../model-definition.js';
import { syncResult, type CampaignOptions, type ModelRunReport, type ModelSpec } from '../run-model.js';
import { z } from 'zod';

/**
 * Configurations create must refuse (H2), each built from the run's geometry: a page that is not a
 * positive multiple of the DCP size (0, negative, off the multiple), a DCP size that is not a
 * positive integer (0, negative, 0.5 — which every integer page is a multiple of), and a negative
 * or fractional requested size.
 */
export const kBadConfigKinds = [
  'pageSizeZero',
  'pageSizeNegative',
  'pageSizeOffMultiple',
  'dcpSizeZero',
  'dcpSizeNegative',
  'dcpSizeFractional',
  'sizeTokensNegative',
  'sizeTokensFractional',
] as const;
export type BadConfigKind = (typeof kBadConfigKinds)[number];

/** One run in this many first tries a configuration that must be refused: often enough to catch a lax create within seconds, rare enough to leave the commands most of the time. */
const kBadConfigRunsPer = 8;

/** Bad calls the contract says must be refused: alloc sizes (H12, always) and frees (H13, checks on). */
export const kRejectKinds = ['negativeAlloc', 'unalignedAlloc', 'doubleFree', 'repeatedSlot', 'negativeSlot', 'slotPastEnd'] as const;
export type RejectKind = (typeof kRejectKinds)[number];

/** Slots a violation message lists in full; a longer call is shown by its ends and its length. */
const kMessageSlotsMax = 16;

export interface HostGeometry {
  readonly kernelPageSize: number;
  readonly dcpSize: number;
  /** Requested size in host pages (the pool adds one); 0 with no extra tokens is the engine's empty request. */
  readonly requestedPages: number;
  /** Tokens past the whole pages (the pool rounds them down): 0 … page − 1. */
  readonly extraTokens: number;
  readonly checks: boolean;
  /** A configuration tried (and required to be refused) before the run's pool is created; null for none. */
  readonly badConfig: BadConfigKind | null;
}

export interface HostModel {
  readonly geometry: HostGeometry;
  readonly pageSize: number;
  readonly sizeExpected: number;
  /** Slot s is ledger page s + 1. */
  readonly ledger: PageLedger;
  holdings: number[][];
  /**
   * Held slots a refused call named, each with that call (as text): a later refusal to give them
   * back is the refused call's doing (H9). An entry goes when its slot is given back or cleared.
   */
  readonly namedInRefusal: Map<number, string>;
  executed: number;
  /** Hears each bad input the model feeds, by its contract rule (a per-rule report counts them). */
  readonly onFed: (rule: string) => void;
}

export interface HostReal {
  readonly pool: HostPool;
  readonly shadow: HostPool | null;
}

/** What a validation runs: the host pool under test, how strictly it is compared, and the part of the contract fed. */
export interface HostContractOptions {
  readonly provider: HostPoolProvider;
  readonly mode: 'contract' | 'exact';
  readonly scope: ReportScope;
}

/** Defines a host contract command (see {@link CommandDefinition}); the argument types follow its schema. */
function hostCommand<A extends readonly unknown[]>(
  definition: CommandDefinition<HostGeometry, HostModel, HostReal, HostContractOptions, A>,
): CommandBuilder<HostGeometry, HostModel, HostReal, HostContractOptions, A> {
  return defineCommand(definition);
}

/** What a value is, in words, for a violation: "an Array", "undefined", "the number 1.5". */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value !== 'object') return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
  if (Array.isArray(value)) return 'an Array';
  return ArrayBuffer.isView(value) ? `a ${value.constructor.name}` : 'an object';
}

/** An integer result (`availableSize`, `free`'s count) as the contract names it. */
function integerResult(value: unknown, op: OpLabel): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new LedgerViolation('return-type', `${op} returned ${kindOf(value)}, not an integer`);
  return value;
}

/** Slots as the contract names them: an Int32Array, or null when short. */
function slotsResult(value: unknown, op: string): Int32Array | null {
  if (value === null || value instanceof Int32Array) return value;
  throw new LedgerViolation('return-type', `${op} returned ${kindOf(value)}, not an Int32Array or null`);
}

/** One size property of a new pool, read once at creation; a throwing getter is a violation like a wrong value (the model never crashes on what a provider returns). */
function readOnce(pool: object, key: 'size' | 'pageSize', law: string): unknown {
  try {
    return (pool as Record<string, unknown>)[key];
  } catch (error) {
    throw new LedgerViolation(law, `create returned a host pool whose ${key} getter threw ${describeThrown(error)}`, 'H1');
  }
}

/** A configuration as the messages show it. */
function configText(config: object): string {
  return `create(${JSON.stringify(config)})`;
}

/**
 * What `create` returned, checked (H1): an object whose page is the configuration's and whose size
 * follows the sizing rule, both read once, here — the pool's size never changes.
 */
function checkedPool(made: unknown, config: HostSlotPoolConfig, sizeExpected: number): HostPool {
  if (made === null || (typeof made !== 'object' && typeof made !== 'function')) throw new LedgerViolation('return-type', `create returned ${kindOf(made)}, not a host pool`);
  const pageSize = readOnce(made, 'pageSize', 'geometry');
  if (pageSize !== config.pageSize) {
    throw new LedgerViolation('geometry', `${configText(config)} returned a host pool with pageSize ${typeof pageSize === 'number' ? pageSize : kindOf(pageSize)}; the configuration gives ${config.pageSize}`, 'H1');
  }
  const size = readOnce(made, 'size', 'host-size');
  if (size !== sizeExpected) {
    throw new LedgerViolation(
      'host-size',
      `${configText(config)} returned a host pool of size ${typeof size === 'number' ? size : kindOf(size)}; the sizing rule, (floor(${config.sizeTokens} / ${config.pageSize}) + 1) × ${config.pageSize}, gives ${sizeExpected}`,
      'H1',
    );
  }
  return made as HostPool;
}

/** The configuration a bad-config kind makes of a run's valid one, and why it must be refused. */
export function badConfigOf(kind: BadConfigKind, valid: HostSlotPoolConfig): { readonly config: HostSlotPoolConfig; readonly why: string } {
  const { sizeTokens, pageSize } = valid;
  const dcpSize = valid.dcpSize ?? 1;
  const bad = (change: Partial<HostSlotPoolConfig>, why: string) => ({ config: { ...valid, ...change }, why });
  switch (kind) {
    case 'pageSizeZero':
      return bad({ pageSize: 0 }, `pageSize 0 is not a positive multiple of dcpSize ${dcpSize}`);
    case 'pageSizeNegative':
      return bad({ pageSize: -pageSize }, `pageSize ${-pageSize} is not a positive multiple of dcpSize ${dcpSize}`);
    case 'pageSizeOffMultiple': {
      // Half a DCP size off the multiple; without DCP every integer is a multiple of 1, so half a slot.
      const off = dcpSize >= 2 ? pageSize + dcpSize / 2 : pageSize + 0.5;
      return bad({ pageSize: off }, `pageSize ${off} is not a multiple of dcpSize ${dcpSize}`);
    }
    case 'dcpSizeZero':
      return bad({ dcpSize: 0 }, 'dcpSize 0 is not a positive integer');
    case 'dcpSizeNegative':
      return bad({ dcpSize: -dcpSize }, `dcpSize ${-dcpSize} is not a positive integer`);
    case 'dcpSizeFractional':
      return bad({ dcpSize: 0.5 }, `dcpSize 0.5 is not a positive integer (pageSize ${pageSize} is a multiple of it)`);
    case 'sizeTokensNegative':
      return bad({ sizeTokens: -1 - sizeTokens }, `sizeTokens ${-1 - sizeTokens} is negative`);
    case 'sizeTokensFractional':
      return bad({ sizeTokens: sizeTokens + 0.5 }, `sizeTokens ${sizeTokens + 0.5} is not an integer`);
  }
}

/** H2: `create` of a configuration that must be refused throws; anything it returns is acceptance. */
function requireRefusedConfig(provider: HostPoolProvider, kind: BadConfigKind, valid: HostSlotPoolConfig): void {
  const { config, why } = badConfigOf(kind, valid);
  let made: unknown;
  try {
    made = provider.create(config);
  } catch (error) {
    // Only the provider's own throw is the refusal: a bridge fault or a violation raised inside the call goes on up.
    if (isProviderFault(error) || error instanceof LedgerViolation) throw error;
    return;
  }
  throw new LedgerViolation('accepted-bad-config', `${configText(config)} must be refused (${why}), but the host pool accepted it and returned ${kindOf(made)}`, 'H2');
}

/** H1: `create` of a valid configuration; a refusal of it is a violation. */
function createValid(provider: HostPoolProvider, config: HostSlotPoolConfig): unknown {
  try {
    return provider.create(config);
  } catch (error) {
    if (isProviderFault(error) || error instanceof LedgerViolation) throw error;
    throw new LedgerViolation('rejected-valid-config', `${configText(config)} was refused (${describeThrown(error)}), but the configuration is valid`, 'H1');
  }
}

function after(m: HostModel, r: HostReal, op: OpLabel): void {
  m.executed++;
  const avail = integerResult(r.pool.availableSize(), 'availableSize()');
  // Right after a clear, a count short of the whole pool is the clear's doing (H8); elsewhere it is H6's.
  if (avail !== m.ledger.freePageCount) throw new LedgerViolation('available-size', `after ${op}: availableSize() = ${avail}, the ledger has ${m.ledger.freePageCount} free slots`, String(op).startsWith('hostClear(') ? 'H8' : 'H6');
}

function same(a: Int32Array | null, b: Int32Array | null): boolean {
  return a === null ? b === null : b !== null && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Slots as a violation message lists them: all of a short call; the ends and the length of a long one. */
function slotsText(slots: readonly number[]): string {
  if (slots.length <= kMessageSlotsMax) return `[${slots.join(', ')}]`;
  return `[${slots.slice(0, kMessageSlotsMax / 2).join(', ')}, … ${slots.slice(-4).join(', ')}] (${slots.length} slots)`;
}

/**
 * Gives held slots back, as {@link HostFree} and the drain do. A refusal of slots a refused call
 * named is that call's doing: it took them from their holder (H9).
 */
function freeHeld(m: HostModel, r: HostReal, given: readonly number[], op: OpLabel): number {
  let count: unknown;
  try {
    count = r.pool.free(Int32Array.from(given));
  } catch (error) {
    if (isProviderFault(error) || error instanceof LedgerViolation) throw error;
    const named = given.find((s) => m.namedInRefusal.has(s));
    if (named === undefined) throw error;
    throw new LedgerViolation(
      'rejected-changed-state',
      `${op}: free of held slots was refused (${describeThrown(error)}); slot ${named} is held, and the refused ${m.namedInRefusal.get(named)} must have left it so`,
      'H9',
    );
  }
  r.shadow?.free(Int32Array.from(given));
  for (const s of given) m.namedInRefusal.delete(s);
  return integerResult(count, op);
}

/** Pages a draw allocates at most, above the pool's size so a `null` comes up. */
const kAllocPagesMax = 6;

/** `alloc` of whole pages: distinct, unheld slots inside the pool, or `null` only when the pool is short. */
export const hostAlloc = hostCommand({
  name: 'hostAlloc',
  args: z.tuple([dataIntSchema]),
  draws: [{ family: 'alloc', weight: 2, arbitrary: (g) => fc.integer({ min: 0, max: Math.min(g.requestedPages + 2, kAllocPagesMax) }).map((k): [number] => [k]) }],
  check: () => true,
  run(m, r, [pages], op) {
    const n = pages * m.pageSize;
    const out = slotsResult(r.pool.alloc(n), String(op));
    if (r.shadow !== null && !same(out, r.shadow.alloc(n))) throw new LedgerViolation('exact', `${op} returned other slots than the reference`);
    if (out === null) {
      if (n <= m.ledger.freePageCount) throw new LedgerViolation('capacity', `${op} returned null with ${m.ledger.freePageCount} slots free`);
    } else {
      if (out.length !== n) throw new LedgerViolation('output-length', `${op} returned ${out.length} slots`);
      for (const s of out) if (!Number.isInteger(s) || s < 0 || s >= m.sizeExpected) throw new LedgerViolation('slot-range', `${op} returned slot ${s}, outside [0, ${m.sizeExpected})`);
      m.ledger.acquire(0, Array.from(out, (s) => s + 1), op);
      if (n > 0) m.holdings.push(Array.from(out));
    }
    after(m, r, op);
  },
});

/** `free` of a holding's slots past its first `keep`: the count it returns must be the slots given. */
export const hostFree = hostCommand({
  name: 'hostFree',
  args: z.tuple([dataIntSchema, z.strictObject({ keep: dataIntSchema })]),
  draws: [{ family: 'free', arbitrary: (g) => fc.tuple(fc.nat(15), fc.integer({ min: 0, max: 3 * g.kernelPageSize * g.dcpSize })).map(([pick, keep]): [number, { keep: number }] => [pick, { keep }]) }],
  check: (m) => m.holdings.length > 0,
  run(m, r, [pick, { keep: keepDrawn }], op) {
    const i = pick % m.holdings.length;
    const holding = m.holdings[i] as number[];
    const keep = Math.min(keepDrawn, holding.length - 1);
    const given = holding.slice(keep);
    const count = freeHeld(m, r, given, op);
    if (count !== given.length) throw new LedgerViolation('free-count', `${op} returned ${count} for ${given.length} slots`);
    m.ledger.release(undefined, given.map((s) => s + 1), false, op);
    if (keep === 0) m.holdings.splice(i, 1);
    else m.holdings[i] = holding.slice(0, keep);
    after(m, r, op);
  },
});

/** A bad call, built from the drawn data and the model: the call, its text, why it must be refused, and the held slots it names. */
interface BadCall {
  readonly call: (pool: HostPool) => unknown;
  readonly text: string;
  readonly why: string;
  readonly held: readonly number[];
}

/**
 * A call the contract says must be refused, and that changes nothing (H9): `alloc` of a negative
 * size or one that is not a page multiple (H12, always); with checks on, `free` of a slot that is
 * not allocated — a free one (never handed out or given back), a held one named twice, a negative
 * one, one at or past `size` — alone or beside held slots (H13). A negative slot is often one that
 * negative indexing would wrap onto a held slot (`s − size`), and a slot past the end one that a
 * modulo would (`size + s`): the cases a pool without range checks gets wrong silently.
 */
/** Whether the model's state lets a bad call of this kind be built. Pure. */
function rejectApplies(m: Readonly<HostModel>, kind: RejectKind): boolean {
  switch (kind) {
    case 'negativeAlloc':
      return true;
    case 'unalignedAlloc':
      return m.pageSize >= 2;
    case 'doubleFree':
      return m.geometry.checks && m.ledger.freePageCount > 0;
    case 'repeatedSlot':
      return m.geometry.checks && m.holdings.length > 0;
    case 'negativeSlot':
    case 'slotPastEnd':
      return m.geometry.checks;
  }
}

function badCallOf(m: Readonly<HostModel>, kind: RejectKind, n: number, pick: number, heldCount: number): BadCall {
  const ps = m.pageSize;
  const size = m.sizeExpected;
  if (kind === 'negativeAlloc' || kind === 'unalignedAlloc') {
    // A negative page multiple (only the sign is wrong), or now and then −1; an unaligned size past whole pages.
    const k = kind === 'negativeAlloc' ? (n % 5 === 4 ? -1 : -ps * (1 + (n % 4))) : ps * (n % 4) + 1 + (n % (ps - 1));
    const why = k < 0 ? `size ${k} is negative` : `size ${k} is not a multiple of page size ${ps}`;
    return { call: (pool) => pool.alloc(k), text: `alloc(${k})`, why, held: [] };
  }
  const holding = m.holdings.length > 0 ? (m.holdings[pick % m.holdings.length] as number[]) : [];
  // A held slot of the picked holding, for the slots that wrap onto one.
  const heldSlot = holding.length > 0 ? (holding[n % holding.length] as number) : null;
  let held = holding.slice(0, heldCount % (holding.length + 1));
  let slot: number;
  let why: string;
  switch (kind) {
    case 'doubleFree': {
      const free: number[] = [];
      for (let s = 0; s < size; s++) if (m.ledger.holderOf(s + 1) < 0) free.push(s);
      slot = free[n % free.length] as number;
      why = `slot ${slot} is not allocated`;
      break;
    }
    case 'repeatedSlot':
      if (held.length === 0) held = holding.slice(0, 1 + (heldCount % holding.length));
      slot = held[n % held.length] as number;
      why = `slot ${slot} is named twice`;
      break;
    case 'negativeSlot':
      slot = heldSlot !== null && n % 2 === 0 ? heldSlot - size : -1 - ((n >> 1) % 4);
      why = `slot ${slot} is negative${slot >= -size ? `; negative indexing would take ${heldSlot === slot + size ? 'held ' : ''}slot ${slot + size}` : ''}`;
      break;
    case 'slotPastEnd':
      slot = size + (n % 3 === 0 ? 0 : n % 3 === 1 ? (heldSlot ?? 1) : ps);
      why = `slot ${slot} is not in [0, ${size})`;
      break;
  }
  const at = (n >> 2) % (held.length + 1);
  const indices = [...held.slice(0, at), slot, ...held.slice(at)];
  return { call: (pool) => pool.free(Int32Array.from(indices)), text: `free(${slotsText(indices)})`, why, held };
}

/**
 * A call the contract says must be refused, and that changes nothing (H9): `alloc` of a negative
 * size or one that is not a page multiple (H12, always); with checks on, `free` of a slot that is
 * not allocated — a free one (never handed out or given back), a held one named twice, a negative
 * one, one at or past `size` — alone or beside held slots (H13). A negative slot is often one that
 * negative indexing would wrap onto a held slot (`s − size`), and a slot past the end one that a
 * modulo would (`size + s`): the cases a pool without range checks gets wrong silently.
 */
export const hostReject = hostCommand({
  name: 'hostReject',
  args: z.tuple([z.enum(kRejectKinds), z.strictObject({ n: dataIntSchema, pick: dataIntSchema, held: dataIntSchema })]),
  draws: [
    {
      family: 'reject',
      arbitrary: (g, o) => {
        // A per-rule report draws only the kinds of the rule it feeds, and none when it feeds another.
        const kinds = kRejectKinds.filter((kind) => scopeFeeds(o.scope, ruleOfRejectKind(kind)));
        if (kinds.length === 0) return null;
        const ps = g.kernelPageSize * g.dcpSize;
        return fc
          .tuple(fc.constantFrom(...kinds), fc.nat(63), fc.nat(15), fc.nat(3 * ps))
          .map(([kind, n, pick, held]): [RejectKind, { n: number; pick: number; held: number }] => [kind, { n, pick, held }]);
      },
    },
  ],
  check: (m, [kind]) => rejectApplies(m, kind),
  run(m, r, [kind, { n, pick, held }], op) {
    const bad = badCallOf(m, kind, n, pick, held);
    const before = r.pool.availableSize();
    let threw = false;
    let returned: unknown;
    try {
      returned = bad.call(r.pool);
    } catch (error) {
      // Only the pool's own throw is the refusal: a bridge fault or a violation raised inside the call goes on up.
      if (isProviderFault(error) || error instanceof LedgerViolation) throw error;
      threw = true;
    }
    const rule = ruleOfRejectKind(kind);
    m.onFed(rule);
    if (!threw) throw new LedgerViolation('accepted-bad-input', `${op}: ${bad.text} must be refused (${bad.why}), but the host pool accepted it and returned ${resultText(returned)}`, rule);
    const now = r.pool.availableSize();
    if (now !== before) throw new LedgerViolation('rejected-changed-state', `${op}: ${bad.text} was refused, but availableSize went ${before} → ${now}`, 'H9');
    for (const s of bad.held) m.namedInRefusal.set(s, bad.text);
    after(m, r, op);
  },
});

/** What an accepted bad call returned, in words. */
function resultText(value: unknown): string {
  if (value instanceof Int32Array) return `${value.length} slots ${slotsText(Array.from(value))}`;
  return kindOf(value);
}

/** `clear`: every slot free again, every holding void. */
export const hostClear = hostCommand({
  name: 'hostClear',
  args: z.tuple([]),
  draws: [{ family: 'clear', arbitrary: noArgs }],
  check: () => true,
  run(m, r, _args, op) {
    r.pool.clear();
    r.shadow?.clear();
    m.ledger.reset();
    m.holdings = [];
    m.namedInRefusal.clear();
    after(m, r, op);
  },
});

function drain(m: HostModel, r: HostReal): void {
  for (const holding of m.holdings) {
    freeHeld(m, r, holding, 'drain');
    m.ledger.release(undefined, holding.map((s) => s + 1), false, 'drain');
  }
  m.holdings = [];
  m.ledger.checkDrained();
  if (r.pool.availableSize() !== m.sizeExpected) throw new LedgerViolation('leak', `after the drain availableSize() = ${r.pool.availableSize()}, not ${m.sizeExpected}`);
}

export function hostConfigOf(g: HostGeometry): HostSlotPoolConfig {
  const ps = g.kernelPageSize * g.dcpSize;
  return { sizeTokens: g.requestedPages * ps + (g.extraTokens % ps), pageSize: ps, dcpSize: g.dcpSize, checks: g.checks };
}

/** The contract rule a bad call of this kind must be refused by. */
export function ruleOfRejectKind(kind: RejectKind): 'H12' | 'H13' {
  return kind === 'negativeAlloc' || kind === 'unalignedAlloc' ? 'H12' : 'H13';
}

/** The host contract model's geometry draws: a per-rule report's H2 family tries a bad configuration in every run, the others in none. */
function hostGeometryArbitrary(fixed: Partial<HostGeometry>, o: HostContractOptions): fc.Arbitrary<HostGeometry> {
  const badConfigWeight = o.scope.family === undefined ? 1 : o.scope.family === 'H2' ? kBadConfigRunsPer : 0;
  return fc.record({
    kernelPageSize: fixedOr(fixed.kernelPageSize, fc.constantFrom(...kKernelPageSizes.filter((k) => k <= 16))),
    dcpSize: fixedOr(fixed.dcpSize, fc.constantFrom(...kDcpSizes.filter((d) => d <= 8))),
    requestedPages: fixedOr(fixed.requestedPages, fc.integer({ min: 0, max: 40 })),
    extraTokens: fixedOr(fixed.extraTokens, fc.nat(1023)),
    checks: fixedOr(fixed.checks, fc.boolean()),
    // Cross-shrinking: a failure that does not need the bad configuration shrinks to a run without it.
    badConfig: fixedOr(
      fixed.badConfig,
      badConfigWeight === 0
        ? fc.constant(null)
        : fc.oneof(
            { withCrossShrink: true },
            { arbitrary: fc.constant(null), weight: kBadConfigRunsPer - badConfigWeight },
            { arbitrary: fc.constantFrom(...kBadConfigKinds), weight: badConfigWeight },
          ),
    ),
  });
}

/** A run's model and real side: the bad configuration first (when drawn), then the pool under test checked at creation, and an empty slot ledger. */
function setupHost(g: HostGeometry, o: HostContractOptions): { model: HostModel; real: HostReal } {
  const onFed = o.scope.onFed ?? ((): void => {});
  const config = hostConfigOf(g);
  const ps = config.pageSize;
  const sizeExpected = (Math.floor(config.sizeTokens / ps) + 1) * ps;
  if (g.badConfig !== null) {
    onFed('H2');
    requireRefusedConfig(o.provider, g.badConfig, config);
  }
  return {
    model: { geometry: g, pageSize: ps, sizeExpected, ledger: new PageLedger(1, sizeExpected), holdings: [], namedInRefusal: new Map(), executed: 0, onFed },
    real: { pool: checkedPool(createValid(o.provider, config), config, sizeExpected), shadow: o.mode === 'exact' ? new HostSlotPool(config) : null },
  };
}

/** The geometry as a failure header prints it. */
function formatHostGeometry(g: HostGeometry): string {
  const config = hostConfigOf(g);
  const first = g.badConfig === null ? '' : `, first ${configText(badConfigOf(g.badConfig, config).config)} (must be refused)`;
  return `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize}, requested ${g.requestedPages} pages + ${g.extraTokens} tokens (sizeTokens ${config.sizeTokens}), checks ${g.checks}${first}`;
}

/** A stored host geometry (a failure the validator replays). */
const hostGeometrySchema: z.ZodType<HostGeometry> = z.strictObject({
  kernelPageSize: oneOfSchema(kKernelPageSizes.filter((k) => k <= 16)),
  dcpSize: oneOfSchema(kDcpSizes.filter((d) => d <= 8)),
  requestedPages: z.int().min(0).max(40),
  extraTokens: z.int().min(0).max(1023),
  checks: z.boolean(),
  badConfig: z.enum(kBadConfigKinds).nullable(),
});

/** Every command of the model, in the order a run's weighted list holds them. */
export const kHostCommands = [hostAlloc, hostFree, hostReject, hostClear] as const;

/**
 * The host pool contract model: what `pnpm validate --pool host` drives a host pool with. Not a
 * fuzz target (it has no reference bugs to find, only providers to judge), but defined like one.
 */
export const hostContractModel: ModelDefinition<HostGeometry, HostModel, HostReal, HostContractOptions> = {
  name: 'host-contract',
  async: false,
  geometry: { schema: hostGeometrySchema, arbitrary: hostGeometryArbitrary, format: formatHostGeometry },
  // Every family at once, every run: the host contract has few calls and every one matters each run.
  mix: () => fc.constant({ alloc: 1, free: 1, reject: 1, clear: 1 }),
  commands: kHostCommands,
  commandsPerRunMax: 40,
  // The alloc draw reads the requested pages (up to 6); the free and reject draws the page size.
  arbitraryKey: (g) => `${g.kernelPageSize * g.dcpSize}/${Math.min(g.requestedPages + 2, kAllocPagesMax)}`,
  reference: { provider: hostSlotPoolProvider, mode: 'contract', scope: {} },
  modeOf: (o) => o.mode,
  setup: setupHost,
  drain,
  ruleOf: (error) => ruleOfError('host', error),
  plantedBugs: [],
};

export function hostContractSpec(provider: HostPoolProvider, mode: 'contract' | 'exact', scope: ReportScope = {}): ModelSpec<HostGeometry, HostModel, HostReal> {
  return modelSpec(hostContractModel, { provider, mode, scope });
}

export function validateHostPool(provider: HostPoolProvider, mode: 'contract' | 'exact', options: CampaignOptions, scope: ReportScope = {}): ModelRunReport<HostGeometry> {
  return syncResult(runModel(hostContractModel, { ...options, options: { provider, mode, scope } }), 'validateHostPool');
}

export function formatHostContractFailure(report: ModelRunReport<HostGeometry>, name: string): string {
  return formatModelFailure(hostContractModel, report, name);
}
