import { weightedArbitraries, type Weighted } from '../weighted-arbitraries.js';
import fc from 'fast-check';
import { AllocCommand } from './commands/alloc-command.js';
import type { AllocatorCommand } from './commands/command.js';
import { DecodeCommand } from './commands/decode-command.js';
import { ExtendCommand, ExtendToCapacityCommand } from './commands/extend-command.js';
import { FreeRowCommand } from './commands/free-row-command.js';
import { FreeSegmentsCommand } from './commands/free-segments-command.js';
import { FreeSubsetCommand } from './commands/free-subset-command.js';
import { GroupBeginCommand, GroupEndCommand } from './commands/group-commands.js';
import { kRejectKindNames, RejectCommand, type RejectKindName } from './commands/reject-command.js';
import { BackupCommand, ClearCommand, RestoreCommand } from './commands/state-commands.js';
import { pageSizeOf, type AllocatorGeometry } from './geometry.js';
import { extendTokensArbitrary } from '../geometry-draws.js';

/** Requests per extend or decode batch: up to 9, so non-power-of-two batches (masked lanes) occur. */
export const kBatchSizeMax = 9;
/** Commands per run: long enough for build-ups, short enough to shrink quickly. */
export const kCommandsPerRunMax = 60;
/** Picks are resolved modulo the live set; this bound only keeps printed programs short. */
const kPickMax = 15;

/**
 * Per-run weights of each command family (STYLE 16): some runs never free, some free all the
 * time, some live inside free groups. A weight of 0 switches the family off for the run.
 */
export interface CommandMix {
  readonly alloc: number;
  readonly extend: number;
  readonly decode: number;
  readonly free: number;
  readonly segments: number;
  readonly group: number;
  readonly backup: number;
  readonly clear: number;
  readonly reject: number;
}

export const commandMixArbitrary: fc.Arbitrary<CommandMix> = fc.record({
  alloc: fc.integer({ min: 0, max: 3 }),
  extend: fc.integer({ min: 1, max: 4 }),
  decode: fc.integer({ min: 0, max: 3 }),
  free: fc.integer({ min: 0, max: 4 }),
  segments: fc.integer({ min: 0, max: 3 }),
  group: fc.integer({ min: 0, max: 2 }),
  backup: fc.integer({ min: 0, max: 1 }),
  clear: fc.constantFrom(0, 0, 1),
  reject: fc.integer({ min: 0, max: 2 }),
});

const pick = fc.integer({ min: 0, max: kPickMax });

/** The command arbitraries of one run, given its geometry and mix. */
export function allocatorCommandArbitraries(g: AllocatorGeometry, mix: CommandMix, rejectKinds: readonly RejectKindName[] = kRejectKindNames): fc.Arbitrary<AllocatorCommand>[] {
  const ps = pageSizeOf(g);
  const weighted: Weighted<AllocatorCommand>[] = [
    { weight: mix.alloc, arbitrary: fc.integer({ min: 0, max: Math.min(g.poolPages + 1, 8) }).map((k) => new AllocCommand(k * ps)) },
    {
      weight: mix.extend * 2,
      arbitrary: fc
        .array(fc.record({ pick: fc.option(pick, { nil: null, freq: 3 }), tokens: extendTokensArbitrary(ps) }), { minLength: 1, maxLength: kBatchSizeMax })
        .map((entries) => new ExtendCommand(entries)),
    },
    { weight: mix.extend, arbitrary: fc.tuple(fc.option(pick, { nil: null }), fc.boolean()).map(([p, short]) => new ExtendToCapacityCommand(p, short)) },
    {
      weight: mix.decode,
      arbitrary: fc.array(fc.option(pick, { nil: null, freq: 6 }), { minLength: 1, maxLength: kBatchSizeMax }).map((picks) => new DecodeCommand(picks)),
    },
    { weight: mix.free, arbitrary: pick.map((p) => new FreeRowCommand(p)) },
    {
      weight: mix.free,
      arbitrary: fc.tuple(pick, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.boolean()).map(([p, mask, one]) => new FreeSubsetCommand(p, mask, one)),
    },
    {
      weight: mix.segments * 2,
      arbitrary: fc
        .tuple(pick, fc.integer({ min: 0, max: 4 }), fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 }))
        .map(([p, keep, cuts]) => new FreeSegmentsCommand(p, keep, cuts)),
    },
    { weight: mix.group, arbitrary: fc.constant(new GroupBeginCommand()) },
    { weight: mix.group, arbitrary: fc.constant(new GroupEndCommand()) },
    { weight: mix.backup, arbitrary: fc.constant(new BackupCommand()) },
    { weight: mix.backup, arbitrary: fc.constant(new RestoreCommand()) },
    { weight: mix.clear, arbitrary: fc.constant(new ClearCommand()) },
    ...(rejectKinds.length === 0
      ? []
      : [
          {
            weight: mix.reject,
            arbitrary: fc.tuple(fc.constantFrom(...rejectKinds), pick, fc.integer({ min: 1, max: 64 })).map(([kind, p, n]) => new RejectCommand(kind, p, n)),
          },
        ]),
  ];
  return weightedArbitraries(weighted);
}
