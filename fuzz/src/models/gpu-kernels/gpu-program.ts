/**
 * The lock-step model's commands as functions named like their `toString`, so a shrunk failure
 * printed by the fuzzer pastes into a test as-is:
 *
 * ```ts
 * await runGpuKernelsProgram(geometry, [extend([{ pick: null, tokens: 5 }], { padding: 0 }), finish(0, { again: [0], foreign: 'none' })]);
 * ```
 */
import { parseProgram } from '../parse-program.js';
import { GpuDecodeCommand } from './commands/decode-command.js';
import { GpuExtendCommand, GpuExtendToCapacityCommand } from './commands/extend-command.js';
import { GpuFinishCommand, type ForeignPage } from './commands/finish-command.js';
import type { GpuKernelsCommand } from './commands/gpu-command.js';
import type { BatchEntry } from './gpu-model-io.js';

export const extend = (entries: readonly BatchEntry[], o: { padding: number }): GpuKernelsCommand => new GpuExtendCommand(entries, o.padding);
export const extendToCapacity = (o: { pick: number | null; short: boolean }): GpuKernelsCommand => new GpuExtendToCapacityCommand(o.pick, o.short);
export const decode = (picks: readonly (number | null)[]): GpuKernelsCommand => new GpuDecodeCommand(picks);
export const finish = (pick: number, o: { again: readonly number[]; foreign: ForeignPage }): GpuKernelsCommand => new GpuFinishCommand(pick, o.again, o.foreign);

/** Every builder by name, for evaluating a printed program. */
export const kGpuProgramScope = { extend, extendToCapacity, decode, finish } as const;

/** Turns printed command lines (`extend(…)`, …) back into commands; only the builders above are in scope. */
export function parseGpuProgram(lines: readonly string[]): GpuKernelsCommand[] {
  return parseProgram<GpuKernelsCommand>(kGpuProgramScope, lines);
}
