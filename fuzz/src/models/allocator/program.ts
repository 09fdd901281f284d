/**
 * The allocator model's commands as functions named like their `toString`, so a shrunk failure
 * printed by the fuzzer pastes into a test as-is:
 *
 * ```ts
 * runAllocatorProgram(geometry, [groupBegin(), alloc(64), freeSegments(0, { keepPages: 0, cuts: [] })]);
 * ```
 *
 * and the codec that rebuilds the same commands from their data (a regression file), each
 * builder's arguments checked by a schema first.
 */
import { z } from 'zod';
import { AllocCommand } from './commands/alloc-command.js';
import type { AllocatorCommand } from './commands/command.js';
import { DecodeCommand } from './commands/decode-command.js';
import { ExtendCommand, ExtendToCapacityCommand, type ExtendEntry } from './commands/extend-command.js';
import { FreeRowCommand } from './commands/free-row-command.js';
import { FreeSegmentsCommand } from './commands/free-segments-command.js';
import { FreeSubsetCommand } from './commands/free-subset-command.js';
import { GroupBeginCommand, GroupEndCommand } from './commands/group-commands.js';
import { kRejectKindNames, RejectCommand, type RejectKindName } from './commands/reject-command.js';
import { BackupCommand, ClearCommand, RestoreCommand } from './commands/state-commands.js';
import { kBatchSizeMax } from './allocator-commands.js';
import { dataIntSchema, dataListSchema, dataPickOrNullSchema, dataTokensSchema, kDataListMax } from '../command-bounds.js';
import { codecEntry, decodeCommands, type CommandCodec } from '../command-codec.js';
import type { CommandData } from '../command-data.js';

if (kBatchSizeMax > kDataListMax) throw new Error(`kBatchSizeMax ${kBatchSizeMax} exceeds the stored list bound kDataListMax ${kDataListMax}`);

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

/** `reject`'s `n`: the reject kinds build their bad call from `n >= 1`. */
const rejectNSchema = dataIntSchema.min(1);

/** Every builder by name with the schema of its arguments: how stored data becomes commands. */
export const kAllocatorCodec: CommandCodec<AllocatorCommand> = {
  alloc: codecEntry(z.tuple([dataTokensSchema]), alloc),
  extend: codecEntry(z.tuple([dataListSchema(z.strictObject({ pick: dataPickOrNullSchema, tokens: dataTokensSchema }))]), extend),
  extendToCapacity: codecEntry(z.tuple([z.strictObject({ pick: dataPickOrNullSchema, short: z.boolean() })]), extendToCapacity),
  decode: codecEntry(z.tuple([dataListSchema(dataPickOrNullSchema)]), decode),
  freeRow: codecEntry(z.tuple([dataIntSchema]), freeRow),
  freeSubset: codecEntry(z.tuple([dataIntSchema, dataListSchema(z.boolean()), z.strictObject({ oneSlotPerPage: z.boolean() })]), freeSubset),
  freeSegments: codecEntry(z.tuple([dataIntSchema, z.strictObject({ keepPages: dataIntSchema, cuts: dataListSchema(dataIntSchema) })]), freeSegments),
  groupBegin: codecEntry(z.tuple([]), groupBegin),
  groupEnd: codecEntry(z.tuple([]), groupEnd),
  backup: codecEntry(z.tuple([]), backup),
  restore: codecEntry(z.tuple([]), restore),
  clear: codecEntry(z.tuple([]), clear),
  reject: codecEntry(z.tuple([z.enum(kRejectKindNames as [RejectKindName, ...RejectKindName[]]), dataIntSchema, rejectNSchema]), reject),
};

/**
 * Rebuilds allocator commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeAllocatorCommands(data: readonly CommandData[]): AllocatorCommand[] {
  return decodeCommands(kAllocatorCodec, data);
}
