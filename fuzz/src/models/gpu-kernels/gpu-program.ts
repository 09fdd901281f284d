/**
 * The lock-step model's commands as functions named like their `toString`, so a shrunk failure
 * printed by the fuzzer pastes into a test as-is:
 *
 * ```ts
 * await runGpuKernelsProgram(geometry, [extend([{ pick: null, tokens: 5 }], { padding: 0 }), finish(0, { again: [0], foreign: 'none' })]);
 * ```
 *
 * and the codec that rebuilds the same commands from their data (a regression file), each
 * builder's arguments checked by a schema first.
 */
import { z } from 'zod';
import { dataIntSchema, dataListSchema, dataPickOrNullSchema, dataTokensSchema, kDataListMax } from '../command-bounds.js';
import { codecEntry, decodeCommands, type CommandCodec } from '../command-codec.js';
import type { CommandData } from '../command-data.js';
import { GpuDecodeCommand } from './commands/decode-command.js';
import { GpuExtendCommand, GpuExtendToCapacityCommand } from './commands/extend-command.js';
import { GpuFinishCommand, kForeignPages, type ForeignPage } from './commands/finish-command.js';
import type { GpuKernelsCommand } from './commands/gpu-command.js';
import { kGpuBatchSizeMax, kPaddingMax } from './gpu-commands.js';
import type { BatchEntry } from './gpu-model-io.js';

export const extend = (entries: readonly BatchEntry[], o: { padding: number }): GpuKernelsCommand => new GpuExtendCommand(entries, o.padding);
export const extendToCapacity = (o: { pick: number | null; short: boolean }): GpuKernelsCommand => new GpuExtendToCapacityCommand(o.pick, o.short);
export const decode = (picks: readonly (number | null)[]): GpuKernelsCommand => new GpuDecodeCommand(picks);
export const finish = (pick: number, o: { again: readonly number[]; foreign: ForeignPage }): GpuKernelsCommand => new GpuFinishCommand(pick, o.again, o.foreign);

/**
 * Most empty requests a stored `extend` may pad its batch with: well above what the model draws
 * (`kPaddingMax`), and small enough that a padded batch stays a few kilobytes of GPU memory.
 */
export const kPaddingDataMax = 4096;

if (kPaddingMax > kPaddingDataMax) throw new Error(`kPaddingMax ${kPaddingMax} exceeds the stored bound kPaddingDataMax ${kPaddingDataMax}`);
if (kGpuBatchSizeMax > kDataListMax) throw new Error(`kGpuBatchSizeMax ${kGpuBatchSizeMax} exceeds the stored list bound kDataListMax ${kDataListMax}`);

/** Every builder by name with the schema of its arguments: how stored data becomes commands. */
export const kGpuCodec: CommandCodec<GpuKernelsCommand> = {
  extend: codecEntry(
    z.tuple([dataListSchema(z.strictObject({ pick: dataPickOrNullSchema, tokens: dataTokensSchema })), z.strictObject({ padding: z.int().min(0).max(kPaddingDataMax) })]),
    extend,
  ),
  extendToCapacity: codecEntry(z.tuple([z.strictObject({ pick: dataPickOrNullSchema, short: z.boolean() })]), extendToCapacity),
  decode: codecEntry(z.tuple([dataListSchema(dataPickOrNullSchema)]), decode),
  finish: codecEntry(z.tuple([dataIntSchema, z.strictObject({ again: dataListSchema(dataIntSchema), foreign: z.enum(kForeignPages as [ForeignPage, ...ForeignPage[]]) })]), finish),
};

/**
 * Rebuilds lock-step commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeGpuCommands(data: readonly CommandData[]): GpuKernelsCommand[] {
  return decodeCommands(kGpuCodec, data);
}
