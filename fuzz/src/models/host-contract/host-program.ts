/**
 * The host pool contract model's commands: the builders, named like the calls a failure printed by
 * `pnpm validate --pool host` shows, so it pastes into a test as-is:
 *
 * ```ts
 * runProgram(hostContractSpec(provider, 'contract'), geometry, [hostAlloc(2), hostReject('doubleFree', { n: 3, pick: 0, held: 1 })]);
 * ```
 *
 * and the codec that rebuilds the same commands from their data (a failure's `commands`, which
 * the validator replays for a process provider's transcript), each builder's arguments checked by
 * a schema first.
 */
import { decodeCommands } from '../command-codec.js';
import type { CommandData } from '../command-data.js';
import { codecOf, type ModelCommand } from '../model-command.js';
import { hostAlloc, hostClear, hostFree, hostReject, kHostCommands, type HostModel, type HostReal } from './host-contract-model.js';

export { hostAlloc, hostClear, hostFree, hostReject };

/** A host model command, as the builders make it. */
export type HostProgramCommand = ModelCommand<HostModel, HostReal>;

/** Every builder by name with the schema of its arguments: how data becomes commands. */
export const kHostCodec = codecOf(kHostCommands);

/**
 * Rebuilds host model commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeHostCommands(data: readonly CommandData[]): HostProgramCommand[] {
  return decodeCommands(kHostCodec, data);
}
