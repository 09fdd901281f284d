/**
 * The host pool contract model: what `pnpm validate --pool host` drives an alternative host pool
 * with. Per run a geometry (host page = kernel page × DCP, requested size, checks), then
 * allocations of whole pages, gives-back of whole holdings or parts of them, double frees that
 * must be refused (checks on), unaligned sizes that must be refused, and clears. A slot ledger is
 * the oracle: outputs distinct and unheld, inside the pool, `null` only when the pool is short,
 * `availableSize` exact, the size by the sizing rule (one extra page); in exact mode also the
 * reference's slots (its contiguous-run preference).
 */
import fc from 'fast-check';
import { kDcpSizes } from '@kvfuzz/allocator-core';
import { HostSlotPool, type HostPool, type HostPoolProvider, type HostSlotPoolConfig } from '@kvfuzz/host-pool';
import { LedgerViolation } from '../../ledger/ledger-violation.js';
import { PageLedger } from '../../ledger/page-ledger.js';
import { isProviderFault } from '../../provider-fault.js';
import { describeThrown } from '../../text/describe-thrown.js';
import { kKernelPageSizes } from '../allocator/geometry.js';
import { formatFailure, runCampaign, type CampaignOptions, type ModelRunReport, type ModelSpec } from '../run-model.js';

export interface HostGeometry {
  readonly kernelPageSize: number;
  readonly dcpSize: number;
  /** Requested size in host pages (the pool adds one). */
  readonly requestedPages: number;
  /** Tokens past the whole pages (the pool rounds them down): 0 … page − 1. */
  readonly extraTokens: number;
  readonly checks: boolean;
}

interface HostModel {
  readonly geometry: HostGeometry;
  readonly pageSize: number;
  readonly sizeExpected: number;
  /** Slot s is ledger page s + 1. */
  readonly ledger: PageLedger;
  holdings: number[][];
  executed: number;
}

interface HostReal {
  readonly pool: HostPool;
  readonly shadow: HostPool | null;
}

type HostCommand = fc.Command<HostModel, HostReal>;

/** What a value is, in words, for a violation: "an Array", "undefined", "the number 1.5". */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value !== 'object') return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
  if (Array.isArray(value)) return 'an Array';
  return ArrayBuffer.isView(value) ? `a ${value.constructor.name}` : 'an object';
}

/** An integer result (`availableSize`, `free`'s count) as the contract names it. */
function integerResult(value: unknown, op: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new LedgerViolation('return-type', `${op} returned ${kindOf(value)}, not an integer`);
  return value;
}

/** Slots as the contract names them: an Int32Array, or null when short. */
function slotsResult(value: unknown, op: string): Int32Array | null {
  if (value === null || value instanceof Int32Array) return value;
  throw new LedgerViolation('return-type', `${op} returned ${kindOf(value)}, not an Int32Array or null`);
}

/** A new pool's page, read once at creation; a throwing getter is a violation like a wrong value (the model never crashes on what a provider returns). */
function readPageSize(pool: object, expect: number): void {
  let value: unknown;
  try {
    value = (pool as { pageSize?: unknown }).pageSize;
  } catch (error) {
    throw new LedgerViolation('geometry', `create returned a host pool whose pageSize getter threw ${describeThrown(error)}`);
  }
  if (value !== expect) throw new LedgerViolation('geometry', `create returned a host pool with pageSize ${typeof value === 'number' ? value : kindOf(value)}; the configuration gives ${expect}`);
}

/**
 * What `create` returned, checked: an object whose page is the configuration's (its size is
 * checked after every command, against the sizing rule).
 */
function checkedPool(made: unknown, config: HostSlotPoolConfig): HostPool {
  if (made === null || (typeof made !== 'object' && typeof made !== 'function')) throw new LedgerViolation('return-type', `create returned ${kindOf(made)}, not a host pool`);
  readPageSize(made, config.pageSize);
  return made as HostPool;
}

function after(m: HostModel, r: HostReal, op: string): void {
  m.executed++;
  if (r.pool.size !== m.sizeExpected) throw new LedgerViolation('host-size', `after ${op}: size ${r.pool.size}; the sizing rule (one extra page) gives ${m.sizeExpected}`);
  const avail = integerResult(r.pool.availableSize(), 'availableSize()');
  if (avail !== m.ledger.freePageCount) throw new LedgerViolation('available-size', `after ${op}: availableSize() = ${avail}, the ledger has ${m.ledger.freePageCount} free slots`);
}

function same(a: Int32Array | null, b: Int32Array | null): boolean {
  return a === null ? b === null : b !== null && a.length === b.length && a.every((x, i) => x === b[i]);
}

class HostAlloc implements HostCommand {
  constructor(readonly pages: number) {}
  check(): boolean {
    return true;
  }
  run(m: HostModel, r: HostReal): void {
    const op = this.toString();
    const n = this.pages * m.pageSize;
    const out = slotsResult(r.pool.alloc(n), op);
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
  }
  toString(): string {
    return `hostAlloc(${this.pages})`;
  }
}

class HostFree implements HostCommand {
  constructor(
    readonly pick: number,
    readonly keep: number,
  ) {}
  check(m: Readonly<HostModel>): boolean {
    return m.holdings.length > 0;
  }
  run(m: HostModel, r: HostReal): void {
    const op = this.toString();
    const i = this.pick % m.holdings.length;
    const holding = m.holdings[i] as number[];
    const keep = Math.min(this.keep, holding.length - 1);
    const given = holding.slice(keep);
    const count = integerResult(r.pool.free(Int32Array.from(given)), op);
    r.shadow?.free(Int32Array.from(given));
    if (count !== given.length) throw new LedgerViolation('free-count', `${op} returned ${count} for ${given.length} slots`);
    m.ledger.release(undefined, given.map((s) => s + 1), false, op);
    if (keep === 0) m.holdings.splice(i, 1);
    else m.holdings[i] = holding.slice(0, keep);
    after(m, r, op);
  }
  toString(): string {
    return `hostFree(${this.pick}, { keep: ${this.keep} })`;
  }
}

class HostReject implements HostCommand {
  constructor(
    readonly kind: 'doubleFree' | 'unalignedAlloc',
    readonly n: number,
  ) {}
  check(m: Readonly<HostModel>): boolean {
    return this.kind === 'unalignedAlloc' ? m.pageSize >= 2 : m.geometry.checks && m.ledger.freePageCount > 0;
  }
  run(m: HostModel, r: HostReal): void {
    const op = this.toString();
    let call: () => unknown;
    if (this.kind === 'unalignedAlloc') call = () => r.pool.alloc(m.pageSize * (this.n % 4) + 1 + (this.n % (m.pageSize - 1)));
    else {
      const free: number[] = [];
      for (let s = 0; s < m.sizeExpected; s++) if (m.ledger.holderOf(s + 1) < 0) free.push(s);
      const slot = free[this.n % free.length] as number;
      call = () => r.pool.free([slot]);
    }
    const before = r.pool.availableSize();
    let threw = false;
    try {
      call();
    } catch (error) {
      // Only the pool's own throw is the refusal: a bridge fault or a violation raised inside the call goes on up.
      if (isProviderFault(error) || error instanceof LedgerViolation) throw error;
      threw = true;
    }
    if (!threw) throw new LedgerViolation('accepted-bad-input', `${op} must be refused, but the host pool accepted it`);
    if (r.pool.availableSize() !== before) throw new LedgerViolation('rejected-changed-state', `${op} was refused but availableSize went ${before} → ${r.pool.availableSize()}`);
    after(m, r, op);
  }
  toString(): string {
    return `hostReject('${this.kind}', ${this.n})`;
  }
}

class HostClear implements HostCommand {
  check(): boolean {
    return true;
  }
  run(m: HostModel, r: HostReal): void {
    r.pool.clear();
    r.shadow?.clear();
    m.ledger.reset();
    m.holdings = [];
    after(m, r, this.toString());
  }
  toString(): string {
    return 'hostClear()';
  }
}

function drain(m: HostModel, r: HostReal): void {
  for (const holding of m.holdings) {
    r.pool.free(Int32Array.from(holding));
    r.shadow?.free(Int32Array.from(holding));
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

export function hostContractSpec(provider: HostPoolProvider, mode: 'contract' | 'exact'): ModelSpec<HostGeometry, HostModel, HostReal> {
  const geometry = fc.record({
    kernelPageSize: fc.constantFrom(...kKernelPageSizes.filter((k) => k <= 16)),
    dcpSize: fc.constantFrom(...kDcpSizes.filter((d) => d <= 8)),
    requestedPages: fc.integer({ min: 1, max: 40 }),
    extraTokens: fc.nat(1023),
    checks: fc.boolean(),
  });
  return {
    arbitrary: geometry.chain((g) => {
      const ps = g.kernelPageSize * g.dcpSize;
      const pages = (g.requestedPages + 1);
      const arbs: fc.Arbitrary<HostCommand>[] = [
        fc.integer({ min: 0, max: Math.min(pages + 1, 6) }).map((k) => new HostAlloc(k)),
        fc.integer({ min: 0, max: Math.min(pages + 1, 6) }).map((k) => new HostAlloc(k)),
        fc.tuple(fc.nat(15), fc.integer({ min: 0, max: 3 * ps })).map(([p, keep]) => new HostFree(p, keep)),
        fc.tuple(fc.constantFrom<'doubleFree' | 'unalignedAlloc'>('doubleFree', 'unalignedAlloc'), fc.nat(63)).map(([k, n]) => new HostReject(k, n)),
        fc.constant(new HostClear()),
      ];
      return fc.tuple(fc.constant(g), fc.commands(arbs, { maxCommands: 40, size: 'max' }));
    }),
    setup: (g) => {
      const config = hostConfigOf(g);
      const ps = config.pageSize;
      const sizeExpected = (Math.floor(config.sizeTokens / ps) + 1) * ps;
      return {
        model: { geometry: g, pageSize: ps, sizeExpected, ledger: new PageLedger(1, sizeExpected), holdings: [], executed: 0 },
        real: { pool: checkedPool(provider.create(config), config), shadow: mode === 'exact' ? new HostSlotPool(config) : null },
      };
    },
    drain,
    executed: (m) => m.executed,
  };
}

export function validateHostPool(provider: HostPoolProvider, mode: 'contract' | 'exact', options: CampaignOptions): ModelRunReport<HostGeometry> {
  return runCampaign(hostContractSpec(provider, mode), options);
}

export function formatHostContractFailure(report: ModelRunReport<HostGeometry>, name: string): string {
  return formatFailure(report, name, (g) => `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize}, requested ${g.requestedPages} pages + ${g.extraTokens} tokens, checks ${g.checks}`);
}
