/**
 * The request-lifecycle model's commands: the builders, named like the calls a failure prints, so a
 * shrunk failure pastes into a test as-is (see `runPrefixProgram`), and the list the model draws
 * them from and rebuilds stored programs with (each builder's arguments checked by its schema first).
 */
import { decodeCommands } from '../command-codec.js';
import type { CommandData } from '../command-data.js';
import { codecOf } from '../model-command.js';
import { admit, burst } from './commands/admit-commands.js';
import { evict, lock, swa, unlock } from './commands/cache-commands.js';
import type { PrefixCommand } from './commands/command.js';
import { decode, prefill, specAlloc } from './commands/compute-commands.js';
import { finish, rejectGappedRanges, releaseTail } from './commands/release-commands.js';

export { admit, burst, decode, evict, finish, lock, prefill, rejectGappedRanges, releaseTail, specAlloc, swa, unlock };

/** Every command of the model, in the order a run's weighted list holds them. */
export const kPrefixCommands = [admit, burst, prefill, decode, specAlloc, finish, evict, lock, unlock, swa, releaseTail, rejectGappedRanges] as const;

/** Every builder by name with the schema of its arguments: how stored data becomes commands. */
export const kPrefixCodec = codecOf(kPrefixCommands);

/**
 * Rebuilds lifecycle commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodePrefixCommands(data: readonly CommandData[]): PrefixCommand[] {
  return decodeCommands(kPrefixCodec, data);
}
