import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** One recorded engine operation (format: test-data/README.md). */
export type EngineOp =
  | { readonly kind: 'alloc'; readonly n: number }
  | { readonly kind: 'extend'; readonly pre: number[]; readonly seq: number[]; readonly last: number[] }
  | { readonly kind: 'decode'; readonly seq: number[]; readonly last: number[] }
  | { readonly kind: 'free'; readonly idx: number[] }
  | { readonly kind: 'segments'; readonly segs: { readonly idx: number[]; readonly start: number }[] }
  | { readonly kind: 'groupBegin' }
  | { readonly kind: 'groupEnd' }
  | { readonly kind: 'clear' };

export interface EngineTrace {
  readonly cfg: { readonly sizeTokens: number; readonly kernelPageSize: number; readonly dcpSize: number; readonly needSort: boolean; readonly checks: boolean };
  readonly ops: readonly { readonly op: EngineOp; readonly out: number[] | null; readonly avail: number }[];
}

const kTracePath = fileURLToPath(new URL('../../test-data/engine-paged-traces.jsonl.gz', import.meta.url));

/** Every trace of the golden file, in file order. */
export function loadEngineTraces(): EngineTrace[] {
  const text = gunzipSync(readFileSync(kTracePath)).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as EngineTrace);
}
