/**
 * The two-tier model's commands as functions named like their `toString`: the lifecycle builders
 * plus the tier's, so a shrunk failure pastes into a test as-is (see `runTwoTierProgram`).
 */
import { kPrefixProgramScope } from '../prefix-cache/prefix-program.js';
import { AckCommand, ClearAllCommand, EvictHostCommand, HitCommand, HostDoubleFreeCommand, LoadBackCommand, RoundTripCommand, type HiCommand } from './commands/hicache-commands.js';
import { parseProgram } from '../parse-program.js';

export const hit = (prefix: number, tokens: number): HiCommand => new HitCommand(prefix, tokens);
export const evictHost = (tokens: number): HiCommand => new EvictHostCommand(tokens);
export const loadBack = (prefix: number, tokens: number, quotaTokens: number): HiCommand => new LoadBackCommand(prefix, tokens, quotaTokens);
export const ack = (pick: number): HiCommand => new AckCommand(pick);
export const clearAll = (): HiCommand => new ClearAllCommand();
export const hostDoubleFree = (n: number): HiCommand => new HostDoubleFreeCommand(n);
export const roundTrip = (prefix: number, tokens: number, quotaTokens: number): HiCommand => new RoundTripCommand(prefix, tokens, quotaTokens);

export const kTwoTierProgramScope = { ...kPrefixProgramScope, hit, evictHost, loadBack, ack, clearAll, hostDoubleFree, roundTrip } as const;

/** Turns printed command lines back into commands (only the builders above are in scope). */
export function parseTwoTierProgram(lines: readonly string[]): HiCommand[] {
  return parseProgram<HiCommand>(kTwoTierProgramScope, lines);
}
