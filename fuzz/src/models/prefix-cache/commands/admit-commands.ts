import type { PrefixModel, PrefixReal } from '../prefix-model-state.js';
import { afterPrefixCommand } from '../prefix-model-io.js';
import { capData, resolveCap, type CapSpec } from './cap-spec.js';
import type { PrefixCommand } from './command.js';
import { admit, finish, prefillChunk, shapeData, type PromptShape } from './lifecycle.js';
import { printCall, type CommandData } from '../../command-data.js';

/** A new request whose prompt starts with a shared prefix (radix hits, splits, duplicate frees). */
export class AdmitCommand implements PrefixCommand {
  constructor(readonly shape: PromptShape) {}

  check(): boolean {
    return true;
  }

  run(m: PrefixModel, r: PrefixReal): void {
    admit(m, r, this.shape, this.toString());
    afterPrefixCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'admit', args: [shapeData(this.shape)] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/**
 * The MMLU-style load of the seed: `count` requests with one prompt shape are admitted, prefilled
 * in one chunk each, and all finish together (in one free group when the geometry groups finishes)
 * with the same cap.
 */
export class BurstCommand implements PrefixCommand {
  constructor(
    readonly shape: PromptShape,
    readonly count: number,
    readonly cap: CapSpec,
  ) {}

  check(): boolean {
    return true;
  }

  run(m: PrefixModel, r: PrefixReal): void {
    const op = this.toString();
    const burst = [];
    for (let i = 0; i < this.count; i++) {
      const lr = admit(m, r, this.shape, op);
      if (lr === null) break;
      burst.push(lr);
      prefillChunk(m, r, lr, lr.promptLen, op);
    }
    finish(m, r, burst, (lr) => resolveCap(this.cap, lr, m), true, op);
    afterPrefixCommand(m, r, op);
  }

  toData(): CommandData {
    return { op: 'burst', args: [shapeData(this.shape), this.count, capData(this.cap)] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
