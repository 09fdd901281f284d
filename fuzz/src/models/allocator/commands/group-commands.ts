import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';
import { afterCommand, endGroupWithDeferredBad, mirror } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import { printCall, type CommandData } from '../../command-data.js';

/** `freeGroupBegin()`: frees are deferred until the group ends. */
export class GroupBeginCommand implements AllocatorCommand {
  check(m: Readonly<AllocatorModel>): boolean {
    return !m.groupOpen;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    mirror(r, this.toString(), (a) => a.freeGroupBegin());
    m.groupOpen = true;
    afterCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'groupBegin', args: [] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/**
 * `freeGroupEnd()`: everything deferred is released now — or, when the group holds a bad give-back
 * the implementation accepted at the call (A24), the end must be refused with nothing changed,
 * and the model recovers with `clear()`.
 */
export class GroupEndCommand implements AllocatorCommand {
  check(m: Readonly<AllocatorModel>): boolean {
    return m.groupOpen;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    if (m.deferredBad.length > 0) {
      endGroupWithDeferredBad(m, r, this.toString());
    } else {
      mirror(r, this.toString(), (a) => a.freeGroupEnd());
      m.groupOpen = false;
      m.ledger.flushQueued();
    }
    afterCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'groupEnd', args: [] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
