/**
 * The two-tier model's commands as functions named like their `toString`: the lifecycle builders
 * plus the tier's, so a shrunk failure pastes into a test as-is (see `runTwoTierProgram`), and the
 * codec that rebuilds the same commands from their data, each builder's arguments checked first.
 */
import { z } from 'zod';
import { dataIntSchema, dataTokensSchema } from '../command-bounds.js';
import { codecEntry, decodeCommands, type CommandCodec } from '../command-codec.js';
import type { CommandData } from '../command-data.js';
import { kPrefixCodec } from '../prefix-cache/prefix-program.js';
import { AckCommand, ClearAllCommand, EvictHostCommand, HitCommand, HostDoubleFreeCommand, LoadBackCommand, RoundTripCommand, type HiCommand } from './commands/hicache-commands.js';

export const hit = (prefix: number, tokens: number): HiCommand => new HitCommand(prefix, tokens);
export const evictHost = (tokens: number): HiCommand => new EvictHostCommand(tokens);
export const loadBack = (prefix: number, tokens: number, quotaTokens: number): HiCommand => new LoadBackCommand(prefix, tokens, quotaTokens);
export const ack = (pick: number): HiCommand => new AckCommand(pick);
export const clearAll = (): HiCommand => new ClearAllCommand();
export const hostDoubleFree = (n: number): HiCommand => new HostDoubleFreeCommand(n);
export const roundTrip = (prefix: number, tokens: number, quotaTokens: number): HiCommand => new RoundTripCommand(prefix, tokens, quotaTokens);

/**
 * Every builder by name with the schema of its arguments: the lifecycle codec (its commands run on
 * the two-tier model's state, which extends the lifecycle's) plus the tier's builders.
 */
export const kTwoTierCodec: CommandCodec<HiCommand> = {
  ...(kPrefixCodec as unknown as CommandCodec<HiCommand>),
  hit: codecEntry(z.tuple([dataIntSchema, dataTokensSchema]), hit),
  evictHost: codecEntry(z.tuple([dataTokensSchema]), evictHost),
  loadBack: codecEntry(z.tuple([dataIntSchema, dataTokensSchema, dataTokensSchema]), loadBack),
  ack: codecEntry(z.tuple([dataIntSchema]), ack),
  clearAll: codecEntry(z.tuple([]), clearAll),
  hostDoubleFree: codecEntry(z.tuple([dataIntSchema]), hostDoubleFree),
  roundTrip: codecEntry(z.tuple([dataIntSchema, dataTokensSchema, dataTokensSchema]), roundTrip),
};

/**
 * Rebuilds two-tier commands from their data (a failure's `commands`).
 *
 * @throws BadInput naming the first command that is not a builder's valid call.
 */
export function decodeTwoTierCommands(data: readonly CommandData[]): HiCommand[] {
  return decodeCommands(kTwoTierCodec, data);
}
