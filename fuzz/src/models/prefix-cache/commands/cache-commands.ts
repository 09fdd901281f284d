import { LedgerViolation } from '../../../ledger/ledger-violation.js';
import type { PrefixModel, PrefixReal } from '../prefix-model-state.js';
import { afterPrefixCommand, inDecode, liveAt } from '../prefix-model-io.js';
import type { PrefixCommand } from './command.js';
import { printCall, type CommandData } from '../../command-data.js';

/** Sliding-window eviction for a decoding request: its SWA floor may only move up, page by page. */
export class SwaCommand implements PrefixCommand {
  constructor(
    readonly pick: number,
    readonly windowTokens: number,
  ) {}

  check(m: Readonly<PrefixModel>): boolean {
    return m.live.some(inDecode);
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const op = this.toString();
    const lr = liveAt(m, this.pick, inDecode);
    if (lr !== null) {
      const before = lr.req.kv.swaEvictedSeqlen;
      r.cache.advanceSwaWindow(lr.req, this.windowTokens);
      if (lr.req.kv.swaEvictedSeqlen < before) throw new LedgerViolation('swa-floor', `${op} moved the SWA floor down, ${before} → ${lr.req.kv.swaEvictedSeqlen}`);
    }
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'swa', args: [this.pick, this.windowTokens] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** Evicts unlocked cached tokens (what a scheduler does under memory pressure). */
export class EvictCommand implements PrefixCommand {
  constructor(readonly tokens: number) {}

  check(): boolean {
    return true;
  }

  run(m: PrefixModel, r: PrefixReal): void {
    r.cache.evict(this.tokens);
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'evict', args: [this.tokens] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** Takes an extra lock on a live request's matched node (eviction must keep it). */
export class LockCommand implements PrefixCommand {
  constructor(readonly pick: number) {}

  check(m: Readonly<PrefixModel>): boolean {
    return m.live.some((lr) => lr.req.lastNode !== null && lr.req.lastNode !== undefined);
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const lr = liveAt(m, this.pick, (x) => x.req.lastNode !== null);
    const node = lr?.req.lastNode ?? null;
    if (node !== null && node !== r.cache.tree.root) {
      r.cache.lock(node);
      m.extraLocks.push(node);
    }
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'lock', args: [this.pick] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** Releases one of the extra locks. */
export class UnlockCommand implements PrefixCommand {
  constructor(readonly pick: number) {}

  check(m: Readonly<PrefixModel>): boolean {
    return m.extraLocks.length > 0;
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const node = m.extraLocks[this.pick % m.extraLocks.length];
    if (node !== undefined) {
      r.cache.tree.decLockRef(node);
      m.extraLocks = m.extraLocks.filter((x, i) => i !== this.pick % m.extraLocks.length || x !== node);
    }
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'unlock', args: [this.pick] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
