import type { PrefixModel, PrefixReal, LiveRequest } from '../prefix-model-state.js';
import { afterPrefixCommand, checkNullIsShort, evictShortfall, inDecode, inPrefill, liveAt, writeContent } from '../prefix-model-io.js';
import type { PrefixCommand } from './command.js';
import { generate, prefillChunk } from './lifecycle.js';
import { printCall, type CommandData } from '../../command-data.js';

/** One chunk of a prefilling request (chunked prefill caches its progress). */
export class PrefillCommand implements PrefixCommand {
  constructor(
    readonly pick: number,
    readonly chunk: number,
  ) {}

  check(m: Readonly<PrefixModel>): boolean {
    return m.live.some(inPrefill);
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const lr = liveAt(m, this.pick, inPrefill);
    if (lr !== null) prefillChunk(m, r, lr, this.chunk, this.toString());
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'prefill', args: [this.pick, this.chunk] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/**
 * A decode step for several requests: those with speculative slots ahead commit into them; the
 * others take a new slot in one `allocDecode` batch (some cross into a new page).
 */
export class DecodeCommand implements PrefixCommand {
  constructor(readonly picks: readonly number[]) {}

  check(m: Readonly<PrefixModel>): boolean {
    return m.live.some(inDecode);
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const op = this.toString();
    const ps = m.pageSize;
    const decoding = m.live.filter(inDecode);
    const batch = [...new Set(this.picks.map((p) => decoding[p % decoding.length] as LiveRequest))];
    const needSlot = batch.filter((lr) => lr.committed === lr.allocated);
    let stepped = batch.filter((lr) => lr.committed < lr.allocated);
    if (needSlot.length > 0) {
      evictShortfall(r, needSlot.length * ps);
      const rows = needSlot.map((lr) => r.reqToToken.row(lr.req.kv.reqPoolIdx));
      r.recorder.actor = (needSlot[0] as LiveRequest).req.id;
      const out = r.recorder.allocDecode({
        seqLens: needSlot.map((lr) => lr.allocated + 1),
        lastLoc: needSlot.map((lr, i) => (rows[i] as Int32Array)[lr.allocated - 1] as number),
      });
      if (out === null) {
        checkNullIsShort(m, needSlot.filter((lr) => lr.allocated % ps === 0).length, op);
      } else {
        needSlot.forEach((lr, i) => {
          r.reqToToken.write(lr.req.kv.reqPoolIdx, lr.allocated, [out[i] as number]);
          lr.req.kv.kvAllocatedLen = ++lr.allocated;
        });
        stepped = batch;
      }
    }
    for (const lr of stepped) {
      generate(lr);
      lr.req.kv.kvCommittedLen = ++lr.committed;
      writeContent(m, r, lr, lr.committed - 1, lr.committed);
    }
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'decode', args: [[...this.picks]] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** Speculative over-allocation: `tokens` slots past the allocated length, not yet committed. */
export class SpecAllocCommand implements PrefixCommand {
  constructor(
    readonly pick: number,
    readonly tokens: number,
  ) {}

  check(m: Readonly<PrefixModel>): boolean {
    return m.live.some(inDecode);
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const op = this.toString();
    const ps = m.pageSize;
    const lr = liveAt(m, this.pick, inDecode);
    if (lr !== null) {
      const pre = lr.allocated;
      const seq = pre + this.tokens;
      const row = r.reqToToken.row(lr.req.kv.reqPoolIdx);
      evictShortfall(r, this.tokens + ps);
      r.recorder.actor = lr.req.id;
      const out = r.recorder.allocExtend({ prefixLens: [pre], seqLens: [seq], lastLoc: [row[pre - 1] as number] });
      if (out === null) checkNullIsShort(m, Math.ceil(seq / ps) - Math.ceil(pre / ps), op);
      else {
        r.reqToToken.write(lr.req.kv.reqPoolIdx, pre, out);
        lr.req.kv.kvAllocatedLen = lr.allocated = seq;
      }
    }
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'specAlloc', args: [this.pick, this.tokens] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
