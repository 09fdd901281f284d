import fc from 'fast-check';
import { kDcpSizes } from '@kvfuzz/allocator-core';
import { z } from 'zod';
import { fixedOr, poolPagesArbitrary } from '../geometry-draws.js';

/** Kernel pages the models draw: the engine's common sizes from token (1) to 64. */
export const kKernelPageSizes: readonly number[] = [1, 2, 4, 8, 16, 64];

/** Largest pool a run draws, in allocator pages: "a few hundred", small enough for O(pages) checks per command. */
export const kPoolPagesMax = 300;

/** DCP sizes that are not powers of two, tried by an A4 probe (CONTRACT.md A4: a provider may refuse them). */
export const kDcpSizesNotPowerOfTwo: readonly number[] = [3, 5, 6, 12];

/** Pages of a probe's configuration: it is built and dropped before the run, so it stays small. */
export const kProbePagesMax = 8;

/** Largest |sizeTokens| a stored probe may name: `kProbePagesMax` pages of the largest page a probe draws, plus one token. */
const kProbeSizeTokensMax = kProbePagesMax * Math.max(...kKernelPageSizes) * Math.max(...kDcpSizes, ...kDcpSizesNotPowerOfTwo) + 1;

/**
 * A configuration `create` is tried with before the run's allocator is built: one that breaks A2
 * (it must be refused), or one whose dcpSize is not a power of two (A4: it may be refused; if it
 * is accepted, its geometry must follow A1). The values are stored as given, so a failure replays.
 */
export interface ConfigProbe {
  readonly rule: 'A2' | 'A4';
  readonly sizeTokens: number;
  readonly kernelPageSize: number;
  readonly dcpSize: number;
}

/** The geometry of one run, drawn once and printed in every failure header. */
export interface AllocatorGeometry {
  readonly kernelPageSize: number;
  readonly dcpSize: number;
  /** Allocator pages that can be handed out (page 0 comes on top). */
  readonly poolPages: number;
  readonly needSort: boolean;
  readonly checks: boolean;
  /**
   * Tokens past the last whole page that `create` is offered (A3): a multiple of `dcpSize` (A2
   * needs `dcpSize` to divide `sizeTokens`) below the page size. A provider may refuse such a
   * size — the run then creates the floored one — or accept it with `poolPages` pages.
   * @defaultValue 0
   */
  readonly sizeExtraTokens?: number | undefined;
  /**
   * A configuration tried before the run's allocator, or null.
   * @defaultValue null
   */
  readonly configProbe?: ConfigProbe | null | undefined;
}

export function pageSizeOf(g: AllocatorGeometry): number {
  return g.kernelPageSize * g.dcpSize;
}

/** The whole pages of the pool, in tokens: the floored size every run can fall back to. */
export function sizeTokensOf(g: AllocatorGeometry): number {
  return g.poolPages * pageSizeOf(g);
}

/** The size `create` is offered first: the whole pages plus the drawn remainder (A3). */
export function sizeTokensOfferedOf(g: AllocatorGeometry): number {
  return sizeTokensOf(g) + (g.sizeExtraTokens ?? 0);
}

/** A probe's configuration as the call that tries it. */
export function formatProbe(p: ConfigProbe): string {
  return `create({ sizeTokens: ${p.sizeTokens}, kernelPageSize: ${p.kernelPageSize}, dcpSize: ${p.dcpSize} })`;
}

export function formatGeometry(g: AllocatorGeometry): string {
  const extra = g.sizeExtraTokens ?? 0;
  const probe = g.configProbe ?? null;
  return [
    `kernelPageSize ${g.kernelPageSize} × dcpSize ${g.dcpSize} = page ${pageSizeOf(g)}, ${g.poolPages} pages`,
    ...(extra > 0 ? [`sizeTokens ${sizeTokensOfferedOf(g)} = ${g.poolPages} pages + ${extra} tokens (A3: may be refused, else floored)`] : []),
    `needSort ${g.needSort}, checks ${g.checks}`,
    ...(probe === null ? [] : [`first ${formatProbe(probe)} (${probe.rule === 'A2' ? 'A2: must be refused' : 'A4: may be refused, else A1 geometry'})`]),
  ].join(', ');
}

/**
 * Extra tokens past the last page: none in three runs of four, else `k × dcpSize` for
 * `1 ≤ k < kernelPageSize` (a remainder must keep `sizeTokens` divisible by `dcpSize`, so a kernel
 * page of 1 has none).
 */
function sizeExtraArbitrary(kernelPageSize: number, dcpSize: number): fc.Arbitrary<number> {
  if (kernelPageSize < 2) return fc.constant(0);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: kernelPageSize - 1 }).map((k) => k * dcpSize) },
  );
}

type ProbeField = 'sizeTokens' | 'kernelPageSize' | 'dcpSize';

/** A valid small configuration a probe starts from. */
const probeBaseArbitrary = fc.record({
  kernelPageSize: fc.constantFrom(...kKernelPageSizes),
  dcpSize: fc.constantFrom(...kDcpSizes),
  pages: fc.integer({ min: 1, max: kProbePagesMax }),
});

/**
 * A configuration A2 or A4 speaks of: one size zero, negative or fractional (A2), a sizeTokens
 * dcpSize does not divide (A2), or a dcpSize that is not a power of two (A4).
 */
export const configProbeArbitrary: fc.Arbitrary<ConfigProbe> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(probeBaseArbitrary, fc.constantFrom<ProbeField>('sizeTokens', 'kernelPageSize', 'dcpSize'), fc.constantFrom('zero', 'negative', 'fractional'))
      .map(([b, field, how]): ConfigProbe => {
        const config = { sizeTokens: b.pages * b.kernelPageSize * b.dcpSize, kernelPageSize: b.kernelPageSize, dcpSize: b.dcpSize };
        const good = config[field];
        config[field] = how === 'zero' ? 0 : how === 'negative' ? -good : good + 0.5;
        return { rule: 'A2', ...config };
      }),
  },
  {
    weight: 1,
    arbitrary: probeBaseArbitrary.map((b): ConfigProbe => {
      const dcpSize = Math.max(2, b.dcpSize);
      return { rule: 'A2', sizeTokens: b.pages * b.kernelPageSize * dcpSize + 1, kernelPageSize: b.kernelPageSize, dcpSize };
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ kernelPageSize: fc.constantFrom(...kKernelPageSizes), dcpSize: fc.constantFrom(...kDcpSizesNotPowerOfTwo), pages: fc.integer({ min: 1, max: kProbePagesMax }) })
      .map((b): ConfigProbe => ({ rule: 'A4', sizeTokens: b.pages * b.kernelPageSize * b.dcpSize, kernelPageSize: b.kernelPageSize, dcpSize: b.dcpSize })),
  },
);

/** No probe in four runs of five: probes are about create, the runs are about the traffic. */
const configProbeOrNullArbitrary: fc.Arbitrary<ConfigProbe | null> = fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: configProbeArbitrary });

/**
 * Which of a run's create-time inputs a campaign draws: a size with a remainder (A3) and a probe
 * (A2 or A4) now and then, always, or never — a per-rule report feeds one rule's inputs at a time.
 */
export interface GeometryDraws {
  readonly sizeExtra: 'sometimes' | 'always' | 'never';
  readonly probe: 'sometimes' | 'A2' | 'A4' | 'never';
}

/** Extra tokens drawn every time the page allows one (a kernel page of 1 has none). */
function sizeExtraAlwaysArbitrary(kernelPageSize: number, dcpSize: number): fc.Arbitrary<number> {
  return kernelPageSize < 2 ? fc.constant(0) : fc.integer({ min: 1, max: kernelPageSize - 1 }).map((k) => k * dcpSize);
}

function probeDraw(probe: GeometryDraws['probe']): fc.Arbitrary<ConfigProbe | null> {
  if (probe === 'never') return fc.constant(null);
  if (probe === 'sometimes') return configProbeOrNullArbitrary;
  return configProbeArbitrary.filter((p) => p.rule === probe);
}

/** Pools from one page (every allocation contends) to a few hundred (long build-ups). Fixed fields are not drawn. */
export function geometryArbitrary(fixed: Partial<AllocatorGeometry> = {}, draws: GeometryDraws = { sizeExtra: 'sometimes', probe: 'sometimes' }): fc.Arbitrary<AllocatorGeometry> {
  return fc
    .record({
      kernelPageSize: fixedOr(fixed.kernelPageSize, fc.constantFrom(...kKernelPageSizes)),
      dcpSize: fixedOr(fixed.dcpSize, fc.constantFrom(...kDcpSizes)),
      poolPages: fixedOr(fixed.poolPages, poolPagesArbitrary(kPoolPagesMax)),
      needSort: fixedOr(fixed.needSort, fc.boolean()),
      checks: fixedOr(fixed.checks, fc.boolean()),
    })
    .chain((g) =>
      fc
        .record({
          sizeExtraTokens: fixedOr(
            fixed.sizeExtraTokens,
            draws.sizeExtra === 'never' ? fc.constant(0) : draws.sizeExtra === 'always' ? sizeExtraAlwaysArbitrary(g.kernelPageSize, g.dcpSize) : sizeExtraArbitrary(g.kernelPageSize, g.dcpSize),
          ),
          configProbe: fixedOr(fixed.configProbe, probeDraw(draws.probe)),
        })
        .map((more): AllocatorGeometry => ({ ...g, ...more })),
    );
}

/** One of the listed numbers (a kernel page size, a DCP size), for a stored geometry's schema. */
export function oneOfSchema(values: readonly number[]): z.ZodType<number> {
  return z.number().refine((v) => values.includes(v), { message: `is not one of ${values.join(', ')}` });
}

/** A stored probe: any finite sizes (they are meant to be bad), bounded so a replay builds nothing large. */
const configProbeSchema: z.ZodType<ConfigProbe> = z.strictObject({
  rule: z.enum(['A2', 'A4']),
  sizeTokens: z.number().min(-kProbeSizeTokensMax).max(kProbeSizeTokensMax),
  kernelPageSize: z.number().min(-Math.max(...kKernelPageSizes)).max(Math.max(...kKernelPageSizes) + 1),
  dcpSize: z.number().min(-Math.max(...kDcpSizes, ...kDcpSizesNotPowerOfTwo)).max(Math.max(...kDcpSizes, ...kDcpSizesNotPowerOfTwo) + 1),
});

/**
 * A stored geometry (a regression file's), checked against the ranges the model draws from, so a
 * replay never builds a pool larger than a campaign could have. Files written before the A3
 * remainder and the probes existed omit them.
 */
export const allocatorGeometrySchema: z.ZodType<AllocatorGeometry> = z
  .strictObject({
    kernelPageSize: oneOfSchema(kKernelPageSizes),
    dcpSize: oneOfSchema(kDcpSizes),
    poolPages: z.int().min(1).max(kPoolPagesMax),
    needSort: z.boolean(),
    checks: z.boolean(),
    sizeExtraTokens: z.int().min(0).optional(),
    configProbe: configProbeSchema.nullable().optional(),
  })
  .refine((g) => (g.sizeExtraTokens ?? 0) < g.kernelPageSize * g.dcpSize && (g.sizeExtraTokens ?? 0) % g.dcpSize === 0, {
    message: 'sizeExtraTokens must be a multiple of dcpSize below the page size',
    path: ['sizeExtraTokens'],
  });
