import fc from 'fast-check';
import { z } from 'zod';
import { dataIntSchema, dataTokensSchema } from '../../command-bounds.js';
import { tokensArbitrary, type PrefixGeometry } from '../geometry.js';
import { kSharedPrefixes } from '../prompts.js';

/** The shape of a prompt: `shared` tokens of shared prefix `prefix`, then `own` tokens of its own. Printed as its data. */
export interface PromptShape {
  readonly prefix: number;
  readonly shared: number;
  readonly own: number;
  readonly extraKey: string | null;
}

/** An extra key (LoRA adapter name): short and plain; the model draws `'lora-a'`. */
const kExtraKeyPattern = /^[A-Za-z0-9._-]{1,64}$/;

export const shapeSchema = z.strictObject({ prefix: dataIntSchema, shared: dataTokensSchema, own: dataTokensSchema, extraKey: z.string().regex(kExtraKeyPattern).nullable() });

/** A prompt on one of the shared prefixes, up to three pages of it and two of its own. */
export function shapeArbitrary(g: PrefixGeometry): fc.Arbitrary<PromptShape> {
  return fc.record({
    prefix: fc.integer({ min: 0, max: kSharedPrefixes - 1 }),
    shared: tokensArbitrary(g, 3),
    own: tokensArbitrary(g, 2).map((n) => Math.max(1, n)),
    extraKey: fc.constantFrom<string | null>(null, null, null, 'lora-a'),
  });
}
