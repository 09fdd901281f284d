/**
 * The allocator model's commands: the builders, named like the calls a failure prints, so a shrunk
 * failure pastes into a test as-is,
 *
 * ```ts
 * runAllocatorProgram(geometry, [groupBegin(), alloc(64), freeSegments(0, { keepPages: 0, cuts: [] })]);
 * ```
 *
 * and the list the model draws them from and rebuilds stored programs with (each builder's
 * arguments checked by its schema first).
 */
import { decodeCommands } from '../command-codec.js';
import type { CommandData } from '../command-data.js';
import { codecOf } from '../model-command.js';
import { alloc } from './commands/alloc-command.js';
import type { AllocatorCommand } from './commands/command.js';
import { decode } from './commands/decode-command.js';
import { extend, extendToCapacity } from './commands/extend-command.js';
import { freeRow } from './commands/free-row-command.js';
import { freeSegments } from './commands/free-segments-command.js';
import { freeSubset } from './commands/free-subset-command.js';
import { groupBegin, groupEnd } from './commands/group-commands.js';
import { reject } from './commands/reject-command.js';
import { backup, clear, restore } from './commands/state-commands.js';

export { alloc, backup, clear, decode, extend, extendToCapacity, freeRow, freeSegments, freeSubset, groupBegin, groupEnd, reject, restore };

/** Every command of the model, in the order a run's weighted list holds them. */
export const kAllocatorCommands = [alloc, extend, extendToCapacity, decode, freeRow, freeSubset, freeSegments, groupBegin, groupEnd, backup, restore, clear, reject] as const;

/** Every builder by name with the schema of its arguments: how stored data becomes commands. */
export const kAllocatorCodec = codecOf(kAllocatorCommands);

/**
 * Rebuilds allocator commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeAllocatorCommands(data: readonly CommandData[]): AllocatorCommand[] {
  return decodeCommands(kAllocatorCodec, data);
}
