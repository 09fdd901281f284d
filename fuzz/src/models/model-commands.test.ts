import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectRoundTrip } from '../../test/support/expect-round-trip.js';
import { kModels } from '../fuzz-targets.js';
import * as allocatorProgram from './allocator/program.js';
import * as gpuProgram from './gpu-kernels/gpu-program.js';
import * as hiCacheProgram from './hicache/hicache-program.js';
import { hostContractModel } from './host-contract/host-contract-model.js';
import * as hostProgram from './host-contract/host-program.js';
import { entryOf, ModelCommand } from './model-command.js';
import { buildDraws, decodeModelCommands, modelCodec, modelSpec, type ModelDefinition } from './model-definition.js';
import * as prefixProgram from './prefix-cache/prefix-program.js';

/** Each model's program module: the builders a printed failure imports. */
const kPrograms: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  allocator: allocatorProgram,
  'prefix-cache': prefixProgram,
  hicache: hiCacheProgram,
  'gpu-kernels': gpuProgram,
  'host-contract': hostProgram,
};

/** Every model defined with the skeleton: the fuzz targets, and the host pool contract model `pnpm validate` runs. */
const kAllModels = [...kModels, hostContractModel] as const;

/** Runs sampled per model: every command of every model comes up (the rarest are the lifecycle's locks in the HiCache mix). */
const kSampleRuns = 400;

type AnyModel = ModelDefinition<unknown, { executed: number }, unknown, unknown>;

/** A drawn command as fast-check hands it over (its wrapper keeps the command as `cmd`). */
function unwrap(c: object): ModelCommand<unknown, unknown> {
  const inner = 'cmd' in c ? (c as { cmd: unknown }).cmd : c;
  if (!(inner instanceof ModelCommand)) throw new Error(`not a model command: ${String(inner)}`);
  return inner as ModelCommand<unknown, unknown>;
}

describe.each(kAllModels.map((def) => [def.name, def as unknown as AnyModel] as const))('fuzz:models,commands %s', (name, def) => {
  it('round-trips every drawn command through its printed form and its stored form', () => {
    const runs = fc.sample(modelSpec(def, def.reference).arbitrary, { numRuns: kSampleRuns, seed: 7 });
    const drawn = runs.flatMap(([, commands]) => Array.from(commands, unwrap));
    const ops = expectRoundTrip(drawn, (data) => decodeModelCommands(def, data));
    expect([...ops].sort()).toEqual(Object.keys(modelCodec(def)).sort());
  });

  it("exports every command's builder from its program under the name it prints", () => {
    const program = kPrograms[name];
    expect(program, `add the ${name} program module to kPrograms`).toBeDefined();
    for (const item of def.commands) {
      const { builder } = entryOf(item);
      expect(program?.[builder.definition.name], builder.definition.name).toBe(builder);
    }
  });

  it('draws the same commands for every geometry of one arbitrary key (the runner builds them once per key)', () => {
    const geometries = fc.sample(def.geometry.arbitrary({}, def.reference), { numRuns: 300, seed: 11 });
    const firstOfKey = new Map<string, unknown>();
    let compared = 0;
    for (const g of geometries) {
      const key = def.arbitraryKey(g);
      const first = firstOfKey.get(key);
      if (first === undefined) {
        firstOfKey.set(key, g);
        continue;
      }
      const printed = (geometry: unknown): string[] => buildDraws(def, geometry, def.reference).flatMap((d) => fc.sample(d.arbitrary, { numRuns: 20, seed: 3 }).map(String));
      expect(printed(g), `geometries ${JSON.stringify(first)} and ${JSON.stringify(g)} share key ${key}`).toEqual(printed(first));
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });
});
