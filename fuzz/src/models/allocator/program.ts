/**
 * The allocator model's commands as functions named like their `toString`, so a shrunk failure
 * printed by the fuzzer pastes into a test as-is:
 *
 * ```ts
 * runAllocatorProgram(geometry, [groupBegin(), alloc(64), freeSegments(0, { keepPages: 0, cuts: [] })]);
 * ```
 */
import { AllocCommand } from './commands/alloc-command.js';
import type { AllocatorCommand } from './commands/command.js';
import { DecodeCommand } from './commands/decode-command.js';
import { ExtendCommand, ExtendToCapacityCommand, type ExtendEntry } from './commands/extend-command.js';
import { FreeRowCommand } from './commands/free-row-command.js';
import { FreeSegmentsCommand } from './commands/free-segments-command.js';
import { FreeSubsetCommand } from './commands/free-subset-command.js';
import { GroupBeginCommand, GroupEndCommand } from './commands/group-commands.js';
import { RejectCommand, type RejectKindName } from './commands/reject-command.js';
import { BackupCommand, ClearCommand, RestoreCommand } from './commands/state-commands.js';
import { parseProgram } from '../parse-program.js';

export const alloc = (needSize: number): AllocatorCommand => new AllocCommand(needSize);
export const extend = (entries: readonly ExtendEntry[]): AllocatorCommand => new ExtendCommand(entries);
export const extendToCapacity = (o: { pick: number | null; short: boolean }): AllocatorCommand => new ExtendToCapacityCommand(o.pick, o.short);
export const decode = (picks: readonly (number | null)[]): AllocatorCommand => new DecodeCommand(picks);
export const freeRow = (pick: number): AllocatorCommand => new FreeRowCommand(pick);
export const freeSubset = (pick: number, mask: readonly boolean[], o: { oneSlotPerPage: boolean }): AllocatorCommand => new FreeSubsetCommand(pick, mask, o.oneSlotPerPage);
export const freeSegments = (pick: number, o: { keepPages: number; cuts: readonly number[] }): AllocatorCommand => new FreeSegmentsCommand(pick, o.keepPages, o.cuts);
export const groupBegin = (): AllocatorCommand => new GroupBeginCommand();
export const groupEnd = (): AllocatorCommand => new GroupEndCommand();
export const backup = (): AllocatorCommand => new BackupCommand();
export const restore = (): AllocatorCommand => new RestoreCommand();
export const clear = (): AllocatorCommand => new ClearCommand();
export const reject = (kind: RejectKindName, pick: number, n: number): AllocatorCommand => new RejectCommand(kind, pick, n);

/** Every builder by name, for evaluating a printed program. */
export const kAllocatorProgramScope = { alloc, extend, extendToCapacity, decode, freeRow, freeSubset, freeSegments, groupBegin, groupEnd, backup, restore, clear, reject } as const;

/**
 * Turns printed command lines (`alloc(64)`, …) back into commands. Only the builders above are in
 * scope; the text comes from our own `toString`, e.g. a regression file.
 */
export function parseAllocatorProgram(lines: readonly string[]): AllocatorCommand[] {
  return parseProgram<AllocatorCommand>(kAllocatorProgramScope, lines);
}
