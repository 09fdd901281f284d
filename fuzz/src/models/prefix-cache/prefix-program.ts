/**
 * The lifecycle model's commands as functions named like their `toString`, so a shrunk failure
 * pastes into a test as-is (see `runPrefixProgram`).
 */
import { AdmitCommand, BurstCommand } from './commands/admit-commands.js';
import { EvictCommand, LockCommand, SwaCommand, UnlockCommand } from './commands/cache-commands.js';
import type { CapSpec } from './commands/cap-spec.js';
import type { PrefixCommand } from './commands/command.js';
import { DecodeCommand, PrefillCommand, SpecAllocCommand } from './commands/compute-commands.js';
import type { PromptShape } from './commands/lifecycle.js';
import { FinishCommand, RejectGappedRangesCommand, ReleaseTailCommand } from './commands/release-commands.js';
import { parseProgram } from '../parse-program.js';

type CapArg = { readonly cap: CapSpec['kind']; readonly n: number };
const capOf = (c: CapArg): CapSpec => ({ kind: c.cap, n: c.n });

export const admit = (shape: PromptShape): PrefixCommand => new AdmitCommand(shape);
export const burst = (shape: PromptShape, count: number, cap: CapArg): PrefixCommand => new BurstCommand(shape, count, capOf(cap));
export const prefill = (pick: number, chunk: number): PrefixCommand => new PrefillCommand(pick, chunk);
export const decode = (picks: readonly number[]): PrefixCommand => new DecodeCommand(picks);
export const specAlloc = (pick: number, tokens: number): PrefixCommand => new SpecAllocCommand(pick, tokens);
export const finish = (pick: number, cap: CapArg, o: { insert: boolean }): PrefixCommand => new FinishCommand(pick, capOf(cap), o.insert);
export const releaseTail = (pick: number, cuts: readonly number[]): PrefixCommand => new ReleaseTailCommand(pick, cuts);
export const rejectGappedRanges = (pick: number, gap: number): PrefixCommand => new RejectGappedRangesCommand(pick, gap);
export const swa = (pick: number, windowTokens: number): PrefixCommand => new SwaCommand(pick, windowTokens);
export const evict = (tokens: number): PrefixCommand => new EvictCommand(tokens);
export const lock = (pick: number): PrefixCommand => new LockCommand(pick);
export const unlock = (pick: number): PrefixCommand => new UnlockCommand(pick);

export const kPrefixProgramScope = { admit, burst, prefill, decode, specAlloc, finish, releaseTail, rejectGappedRanges, swa, evict, lock, unlock } as const;

/** Turns printed command lines back into commands (only the builders above are in scope). */
export function parsePrefixProgram(lines: readonly string[]): PrefixCommand[] {
  return parseProgram<PrefixCommand>(kPrefixProgramScope, lines);
}
