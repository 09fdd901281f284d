/**
 * The host pool contract model's commands as functions named like their `toString`, so a shrunk
 * failure printed by `pnpm validate --pool host` pastes into a test as-is:
 *
 * ```ts
 * runProgram(hostContractSpec(provider, 'contract'), geometry, [hostAlloc(2), hostReject('doubleFree', { n: 3, pick: 0, held: 1 })]);
 * ```
 *
 * and the codec that rebuilds the same commands from their data (a failure's `commands`, which
 * the validator replays for a process provider's transcript), each builder's arguments checked by
 * a schema first.
 */
import { z } from 'zod';
import { dataIntSchema } from '../command-bounds.js';
import { codecEntry, decodeCommands, type CommandCodec } from '../command-codec.js';
import type { CommandData } from '../command-data.js';
import { HostAlloc, HostClear, HostFree, HostReject, kRejectKinds, type RejectKind } from './host-contract-model.js';

/** A host model command, as the builders make it. */
export type HostProgramCommand = HostAlloc | HostFree | HostReject | HostClear;

export const hostAlloc = (pages: number): HostProgramCommand => new HostAlloc(pages);
export const hostFree = (pick: number, o: { keep: number }): HostProgramCommand => new HostFree(pick, o.keep);
export const hostReject = (kind: RejectKind, o: { n: number; pick: number; held: number }): HostProgramCommand => new HostReject(kind, o.n, o.pick, o.held);
export const hostClear = (): HostProgramCommand => new HostClear();

/** Every builder by name with the schema of its arguments: how data becomes commands. */
export const kHostCodec: CommandCodec<HostProgramCommand> = {
  hostAlloc: codecEntry(z.tuple([dataIntSchema]), hostAlloc),
  hostFree: codecEntry(z.tuple([dataIntSchema, z.strictObject({ keep: dataIntSchema })]), hostFree),
  hostReject: codecEntry(z.tuple([z.enum(kRejectKinds), z.strictObject({ n: dataIntSchema, pick: dataIntSchema, held: dataIntSchema })]), hostReject),
  hostClear: codecEntry(z.tuple([]), hostClear),
};

/**
 * Rebuilds host model commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeHostCommands(data: readonly CommandData[]): HostProgramCommand[] {
  return decodeCommands(kHostCodec, data);
}
