/**
 * The lock-step model's commands: the builders, named like the calls a failure prints, so a shrunk
 * failure pastes into a test as-is,
 *
 * ```ts
 * await runGpuKernelsProgram(geometry, [extend([{ pick: null, tokens: 5 }], { padding: 0 }), finish(0, { again: [0], foreign: 'none' })]);
 * ```
 *
 * and the list the model draws them from and rebuilds stored programs with (each builder's
 * arguments checked by its schema first).
 */
import { decodeCommands } from '../command-codec.js';
import type { CommandData } from '../command-data.js';
import { codecOf } from '../model-command.js';
import { decode } from './commands/decode-command.js';
import { extend, extendToCapacity } from './commands/extend-command.js';
import { finish } from './commands/finish-command.js';
import type { GpuKernelsCommand } from './commands/gpu-command.js';

export { decode, extend, extendToCapacity, finish };

/** Every command of the model, in the order a run's weighted list holds them. */
export const kGpuCommands = [extend, extendToCapacity, decode, finish] as const;

/** Every builder by name with the schema of its arguments: how stored data becomes commands. */
export const kGpuCodec = codecOf(kGpuCommands);

/**
 * Rebuilds lock-step commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeGpuCommands(data: readonly CommandData[]): GpuKernelsCommand[] {
  return decodeCommands(kGpuCodec, data);
}
