import { cloneLive, type AllocatorModel, type AllocatorReal } from '../allocator-model-state.js';
import { afterCommand, mirror } from '../model-io.js';
import type { AllocatorCommand } from './command.js';
import { printCall, type CommandData } from '../../command-data.js';

/** `backupState()`: the model remembers what it knew alongside the snapshot. */
export class BackupCommand implements AllocatorCommand {
  check(m: Readonly<AllocatorModel>): boolean {
    return !m.groupOpen;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    r.backupState = r.allocator.backupState();
    if (r.shadow !== null) r.shadowBackupState = r.shadow.backupState();
    m.backup = { ledger: m.ledger.snapshot(), live: cloneLive(m.live), nextId: m.nextId };
    afterCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'backup', args: [] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** `restoreState(last backup)`: holdings made since are void, frees since are undone. */
export class RestoreCommand implements AllocatorCommand {
  check(m: Readonly<AllocatorModel>): boolean {
    return !m.groupOpen && m.backup !== null;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    const backup = m.backup;
    if (backup === null) return;
    r.allocator.restoreState(r.backupState);
    if (r.shadow !== null) r.shadow.restoreState(r.shadowBackupState);
    m.ledger.restore(backup.ledger);
    m.live = cloneLive(backup.live);
    afterCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'restore', args: [] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}

/** `clear()`: every page free, every holding void, no open group. */
export class ClearCommand implements AllocatorCommand {
  check(): boolean {
    return true;
  }

  run(m: AllocatorModel, r: AllocatorReal): void {
    mirror(r, this.toString(), (a) => a.clear());
    m.ledger.reset();
    m.live = [];
    m.groupOpen = false;
    m.deferredBad = [];
    afterCommand(m, r, this.toString());
  }

  toData(): CommandData {
    return { op: 'clear', args: [] };
  }

  toString(): string {
    return printCall(this.toData());
  }
}
