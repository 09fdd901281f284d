import type { PrefixModel, PrefixReal } from '../prefix-model-state.js';
import { afterPrefixCommand } from '../prefix-model-io.js';
import type { CapSpec } from './cap-spec.js';
import { formatCap, resolveCap } from './cap-spec.js';
import type { PrefixCommand } from './command.js';
import { admit, finish, formatShape, prefillChunk, type PromptShape } from './lifecycle.js';

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

  toString(): string {
    return `admit({ ${formatShape(this.shape)} })`;
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

  toString(): string {
    return `burst({ ${formatShape(this.shape)} }, ${this.count}, ${formatCap(this.cap)})`;
  }
}
