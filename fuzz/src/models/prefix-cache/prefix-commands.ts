import { weightedArbitraries, type Weighted } from '../weighted-arbitraries.js';
import fc from 'fast-check';
import { AdmitCommand, BurstCommand } from './commands/admit-commands.js';
import { EvictCommand, LockCommand, SwaCommand, UnlockCommand } from './commands/cache-commands.js';
import { kCapKinds, type CapSpec } from './commands/cap-spec.js';
import type { PrefixCommand } from './commands/command.js';
import { DecodeCommand, PrefillCommand, SpecAllocCommand } from './commands/compute-commands.js';
import type { PromptShape } from './commands/lifecycle.js';
import { FinishCommand, RejectGappedRangesCommand, ReleaseTailCommand } from './commands/release-commands.js';
import { prefixPageSizeOf, type PrefixGeometry } from './geometry.js';
import { kSharedPrefixes } from './prompts.js';

/** Commands per run: enough for admissions, chunked prefills, decodes and finishes to interleave. */
export const kLifecycleCommandsMax = 40;
/** Largest burst of requests sharing one prefix that finish together. */
export const kBurstSizeMax = 8;
const kPickMax = 15;

/** Per-run weights of each command family (STYLE 16). */
export interface LifecycleMix {
  readonly admit: number;
  readonly burst: number;
  readonly prefill: number;
  readonly decode: number;
  readonly spec: number;
  readonly finish: number;
  readonly evict: number;
  readonly lock: number;
  readonly swa: number;
  readonly ranges: number;
}

export const lifecycleMixArbitrary: fc.Arbitrary<LifecycleMix> = fc.record({
  admit: fc.integer({ min: 1, max: 4 }),
  burst: fc.integer({ min: 0, max: 2 }),
  prefill: fc.integer({ min: 1, max: 4 }),
  decode: fc.integer({ min: 0, max: 3 }),
  spec: fc.integer({ min: 0, max: 2 }),
  finish: fc.integer({ min: 1, max: 4 }),
  evict: fc.integer({ min: 0, max: 2 }),
  lock: fc.integer({ min: 0, max: 1 }),
  swa: fc.integer({ min: 0, max: 2 }),
  ranges: fc.integer({ min: 0, max: 2 }),
});

/** Token counts on the two grids: whole allocator pages, kernel pages inside one, and loose tokens. */
function tokensArbitrary(g: PrefixGeometry, pagesMax: number): fc.Arbitrary<number> {
  const ps = prefixPageSizeOf(g);
  return fc
    .tuple(fc.integer({ min: 0, max: pagesMax }), fc.integer({ min: 0, max: g.dcpSize - 1 }), fc.oneof(fc.constant(0), fc.integer({ min: 0, max: g.kernelPageSize - 1 })))
    .map(([pages, kernels, loose]) => pages * ps + kernels * g.kernelPageSize + loose);
}

function shapeArbitrary(g: PrefixGeometry): fc.Arbitrary<PromptShape> {
  return fc.record({
    prefix: fc.integer({ min: 0, max: kSharedPrefixes - 1 }),
    shared: tokensArbitrary(g, 3),
    own: tokensArbitrary(g, 2).map((n) => Math.max(1, n)),
    extraKey: fc.constantFrom<string | null>(null, null, null, 'lora-a'),
  });
}

const capArbitrary: fc.Arbitrary<CapSpec> = fc.record({ kind: fc.constantFrom(...kCapKinds), n: fc.integer({ min: 0, max: 31 }) });
const pick = fc.integer({ min: 0, max: kPickMax });

export function lifecycleCommandArbitraries(g: PrefixGeometry, mix: LifecycleMix): fc.Arbitrary<PrefixCommand>[] {
  const ps = prefixPageSizeOf(g);
  const weighted: Weighted<PrefixCommand>[] = [
    { weight: mix.admit * 2, arbitrary: shapeArbitrary(g).map((s) => new AdmitCommand(s)) },
    {
      weight: mix.burst,
      arbitrary: fc.tuple(shapeArbitrary(g), fc.integer({ min: 2, max: kBurstSizeMax }), capArbitrary).map(([s, n, cap]) => new BurstCommand(s, n, cap)),
    },
    { weight: mix.prefill * 2, arbitrary: fc.tuple(pick, tokensArbitrary(g, 2).map((n) => Math.max(1, n))).map(([p, n]) => new PrefillCommand(p, n)) },
    { weight: mix.decode * 2, arbitrary: fc.array(pick, { minLength: 1, maxLength: 6 }).map((picks) => new DecodeCommand(picks)) },
    { weight: mix.spec, arbitrary: fc.tuple(pick, fc.integer({ min: 1, max: 2 * ps })).map(([p, n]) => new SpecAllocCommand(p, n)) },
    { weight: mix.finish * 2, arbitrary: fc.tuple(pick, capArbitrary, fc.boolean().map((b) => b || true)).map(([p, cap, insert]) => new FinishCommand(p, cap, insert)) },
    { weight: mix.finish, arbitrary: fc.tuple(pick, capArbitrary).map(([p, cap]) => new FinishCommand(p, cap, false)) },
    { weight: mix.evict, arbitrary: tokensArbitrary(g, 4).map((n) => new EvictCommand(n)) },
    { weight: mix.lock, arbitrary: pick.map((p) => new LockCommand(p)) },
    { weight: mix.lock, arbitrary: pick.map((p) => new UnlockCommand(p)) },
    { weight: mix.swa, arbitrary: fc.tuple(pick, fc.integer({ min: 1, max: 3 * ps })).map(([p, w]) => new SwaCommand(p, w)) },
    { weight: mix.ranges, arbitrary: fc.tuple(pick, fc.array(fc.integer({ min: 0, max: 4 * ps }), { maxLength: 4 })).map(([p, cuts]) => new ReleaseTailCommand(p, cuts)) },
    { weight: mix.ranges, arbitrary: fc.tuple(pick, fc.integer({ min: 0, max: ps })).map(([p, gap]) => new RejectGappedRangesCommand(p, gap)) },
  ];
  return weightedArbitraries(weighted);
}
