import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import { admit, finish, prefillChunk } from '../../prefix-cache/commands/lifecycle.js';
import { afterPrefixCommand } from '../../prefix-cache/prefix-model-io.js';
import { sharedToken } from '../../prefix-cache/prompts.js';
import { hiCacheOf } from '../hicache-checks.js';
import type { HiModel, HiReal } from '../hicache-state.js';
import type fc from 'fast-check';
import { printCall, type CommandData, type DataCommand } from '../../command-data.js';

/** A HiCache command over the two-tier model, with its data (its builder in `hicache-program.ts`). */
export type HiCommand = fc.Command<HiModel, HiReal> & DataCommand;

/** The first `tokens` tokens of shared prefix `prefix` (what earlier admissions cached). */
function sharedPrompt(prefix: number, tokens: number): number[] {
  return Array.from({ length: tokens }, (_, pos) => sharedToken(prefix, pos));
}

/** A lookup of a shared prefix with no request behind it: hits that trigger write-through. */
export class HitCommand implements HiCommand {
  constructor(
    readonly prefix: number,
    readonly tokens: number,
  ) {}

  check(): boolean {
    return true;
  }

  run(m: HiModel, r: HiReal): void {
    hiCacheOf(r).matchPrefix(sharedPrompt(this.prefix, this.tokens), null);
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'hit', args: [this.prefix, this.tokens] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** Host eviction. */
export class EvictHostCommand implements HiCommand {
  constructor(readonly tokens: number) {}

  check(): boolean {
    return true;
  }

  run(m: HiModel, r: HiReal): void {
    hiCacheOf(r).evictHost(this.tokens);
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'evictHost', args: [this.tokens] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** Load-back of the host-only part of a shared prefix, under a memory quota. */
export class LoadBackCommand implements HiCommand {
  constructor(
    readonly prefix: number,
    readonly tokens: number,
    readonly quotaTokens: number,
  ) {}

  check(): boolean {
    return true;
  }

  run(m: HiModel, r: HiReal): void {
    const cache = hiCacheOf(r);
    const found = cache.matchHost(sharedPrompt(this.prefix, this.tokens), null);
    if (found.hostHitLength > 0) cache.loadBack(found.lastHostNode, this.quotaTokens);
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'loadBack', args: [this.prefix, this.tokens, this.quotaTokens] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** A copy in flight completes — any of them, in any order. */
export class AckCommand implements HiCommand {
  constructor(readonly pick: number) {}

  check(): boolean {
    return true;
  }

  run(m: HiModel, r: HiReal): void {
    const cache = hiCacheOf(r);
    const pending = cache.pendingCopies();
    const copy = pending[this.pick % Math.max(1, pending.length)];
    if (copy !== undefined) {
      cache.ack(copy.id);
      m.copySources.delete(copy.id);
    }
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'ack', args: [this.pick] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** Everything cleared: device pool, host pool, tree, rows; copies in flight forgotten. */
export class ClearAllCommand implements HiCommand {
  check(): boolean {
    return true;
  }

  run(m: HiModel, r: HiReal): void {
    r.recorder.clear();
    hiCacheOf(r).clearAll();
    r.reqToToken.clear();
    m.live = [];
    m.extraLocks = [];
    m.copySources.clear();
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'clearAll', args: [] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** With `slot_used` checks on, giving back a host slot nobody holds must be refused, changing nothing. */
export class HostDoubleFreeCommand implements HiCommand {
  constructor(readonly n: number) {}

  check(m: Readonly<HiModel>): boolean {
    return m.geometry.hostChecks && m.hostLedger.freePageCount > 0;
  }

  run(m: HiModel, r: HiReal): void {
    const op = this.toString();
    const free: number[] = [];
    for (let slot = 0; slot < m.hostSizeExpected; slot++) if (m.hostLedger.holderOf(slot + 1) < 0) free.push(slot);
    const slot = free[this.n % free.length] as number;
    const before = r.hostPool.availableSize();
    let threw = false;
    try {
      r.hostPool.inner.free([slot]);
    } catch {
      threw = true;
    }
    if (!threw) throw new LedgerViolation('accepted-bad-input', `${op}: the host pool accepted a free of slot ${slot}, which is not allocated`);
    if (r.hostPool.availableSize() !== before) throw new LedgerViolation('rejected-changed-state', `${op} was refused but host availableSize went ${before} → ${r.hostPool.availableSize()}`);
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'hostDoubleFree', args: [this.n] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/**
 * A whole round trip in one command, so deep tier states are common: the shared prefix is cached
 * (a request runs and finishes), hit (write-through), every copy acknowledged, the device tier
 * evicted, and the prefix loaded back under the quota.
 */
export class RoundTripCommand implements HiCommand {
  constructor(
    readonly prefix: number,
    readonly tokens: number,
    readonly quotaTokens: number,
  ) {}

  check(): boolean {
    return true;
  }

  run(m: HiModel, r: HiReal): void {
    const op = this.toString();
    const cache = hiCacheOf(r);
    const prompt = sharedPrompt(this.prefix, this.tokens);
    const shape = { prefix: this.prefix, shared: this.tokens, own: 1, extraKey: null };
    const lr = admit(m, r, shape, op);
    if (lr !== null) {
      prefillChunk(m, r, lr, lr.promptLen, op);
      finish(m, r, [lr], () => null, true, op);
    }
    cache.matchPrefix(prompt, null);
    for (const copy of cache.pendingCopies()) {
      cache.ack(copy.id);
      m.copySources.delete(copy.id);
    }
    cache.evict(cache.evictableSize());
    const found = cache.matchHost(prompt, null);
    if (found.hostHitLength > 0) cache.loadBack(found.lastHostNode, this.quotaTokens);
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'roundTrip', args: [this.prefix, this.tokens, this.quotaTokens] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
