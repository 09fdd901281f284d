/**
 * The lifecycle model's commands as functions named like their `toString`, so a shrunk failure
 * pastes into a test as-is (see `runPrefixProgram`), and the codec that rebuilds the same
 * commands from their data (a regression file), each builder's arguments checked by a schema first.
 */
import { z } from 'zod';
import { AdmitCommand, BurstCommand } from './commands/admit-commands.js';
import { EvictCommand, LockCommand, SwaCommand, UnlockCommand } from './commands/cache-commands.js';
import { kCapKinds, type CapSpec } from './commands/cap-spec.js';
import type { PrefixCommand } from './commands/command.js';
import { DecodeCommand, PrefillCommand, SpecAllocCommand } from './commands/compute-commands.js';
import type { PromptShape } from './commands/lifecycle.js';
import { FinishCommand, RejectGappedRangesCommand, ReleaseTailCommand } from './commands/release-commands.js';
import { kBurstSizeMax } from './prefix-commands.js';
import { dataIntSchema, dataListSchema, dataTokensSchema, kDataListMax } from '../command-bounds.js';
import { codecEntry, decodeCommands, type CommandCodec } from '../command-codec.js';
import type { CommandData } from '../command-data.js';

if (kBurstSizeMax > kDataListMax) throw new Error(`kBurstSizeMax ${kBurstSizeMax} exceeds the stored bound kDataListMax ${kDataListMax}`);

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

/** An extra key (LoRA adapter name): short and plain; the model draws `'lora-a'`. */
const kExtraKeyPattern = /^[A-Za-z0-9._-]{1,64}$/;

const shapeSchema = z.strictObject({ prefix: dataIntSchema, shared: dataTokensSchema, own: dataTokensSchema, extraKey: z.string().regex(kExtraKeyPattern).nullable() });
const capSchema = z.strictObject({ cap: z.enum([...new Set(kCapKinds)] as [CapSpec['kind'], ...CapSpec['kind'][]]), n: dataIntSchema });

/** Every builder by name with the schema of its arguments: how stored data becomes commands. */
export const kPrefixCodec: CommandCodec<PrefixCommand> = {
  admit: codecEntry(z.tuple([shapeSchema]), admit),
  burst: codecEntry(z.tuple([shapeSchema, dataIntSchema.max(kDataListMax), capSchema]), burst),
  prefill: codecEntry(z.tuple([dataIntSchema, dataTokensSchema]), prefill),
  decode: codecEntry(z.tuple([dataListSchema(dataIntSchema)]), decode),
  specAlloc: codecEntry(z.tuple([dataIntSchema, dataTokensSchema]), specAlloc),
  finish: codecEntry(z.tuple([dataIntSchema, capSchema, z.strictObject({ insert: z.boolean() })]), finish),
  releaseTail: codecEntry(z.tuple([dataIntSchema, dataListSchema(dataIntSchema)]), releaseTail),
  rejectGappedRanges: codecEntry(z.tuple([dataIntSchema, dataIntSchema]), rejectGappedRanges),
  swa: codecEntry(z.tuple([dataIntSchema, dataTokensSchema]), swa),
  evict: codecEntry(z.tuple([dataTokensSchema]), evict),
  lock: codecEntry(z.tuple([dataIntSchema]), lock),
  unlock: codecEntry(z.tuple([dataIntSchema]), unlock),
};

/**
 * Rebuilds lifecycle commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodePrefixCommands(data: readonly CommandData[]): PrefixCommand[] {
  return decodeCommands(kPrefixCodec, data);
}
