/**
 * The model configurations the host pool's copy cycle (`kv-copy.bench.ts`) can stand for. What a
 * model sets there is the KV bytes of one token, which is what a device-to-host write-back copies
 * for every slot the host pool hands out.
 */

/** A decoder's KV cache shape, from its Hugging Face `config.json`. */
export interface KvModel {
  /** The `--model` name. */
  readonly name: string;
  /** The checkpoint it describes. */
  readonly checkpoint: string;
  readonly layers: number;
  /** `num_key_value_heads` (grouped-query attention keeps fewer KV heads than query heads). */
  readonly kvHeads: number;
  /** `hidden_size / num_attention_heads`. */
  readonly headDim: number;
  /** Bytes of one cached element (2: bf16). */
  readonly elementBytes: number;
}

/** K and V of every layer: `2 × layers × kvHeads × headDim × elementBytes`. */
export function kvBytesPerToken(model: KvModel): number {
  return 2 * model.layers * model.kvHeads * model.headDim * model.elementBytes;
}

/**
 * Qwen2.5-0.5B (24 layers, 14 query heads and 2 KV heads over a hidden size of 896, so head dim
 * 64, bf16): 2 × 24 × 2 × 64 × 2 B = 12,288 B a token. The smallest model in common use, and with
 * two KV heads the least KV a token of those listed here: its copy is the shortest, so the
 * bookkeeping's share of the cycle is the largest — the hardest realistic case for the checks.
 */
export const kQwen25HalfB: KvModel = { name: 'qwen2.5-0.5b', checkpoint: 'Qwen/Qwen2.5-0.5B', layers: 24, kvHeads: 2, headDim: 64, elementBytes: 2 };

/**
 * Llama-3.2-1B (16 layers, 32 query heads and 8 KV heads over a hidden size of 2048, so head dim
 * 64, bf16): 2 × 16 × 8 × 64 × 2 B = 32,768 B a token. SGLang's own default small test model.
 */
export const kLlama32OneB: KvModel = { name: 'llama-3.2-1b', checkpoint: 'meta-llama/Llama-3.2-1B', layers: 16, kvHeads: 8, headDim: 64, elementBytes: 2 };

/** Every model `--model` accepts. */
export const kKvModels: readonly KvModel[] = [kQwen25HalfB, kLlama32OneB];

/** The model the gate's copy cycle stands for unless told otherwise. */
export const kKvModelDefault: KvModel = kQwen25HalfB;

/**
 * The most KV bytes a token may take in the copy cycle: a cycle copies at most `kCopyBytesMax`
 * (cycle-workload.ts), which must hold one 512-slot page, the widest geometry's. Llama-3.1-8B
 * (2 × 32 × 8 × 128 × 2 B) takes exactly this much.
 */
export const kKvBytesPerTokenMax = 131_072;

// The arithmetic in the comments above, asserted once.
if (kvBytesPerToken(kQwen25HalfB) !== 12_288) throw new Error('Qwen2.5-0.5B is not 12,288 KV bytes a token');
if (kvBytesPerToken(kLlama32OneB) !== 32_768) throw new Error('Llama-3.2-1B is not 32,768 KV bytes a token');
for (const m of kKvModels) if (kvBytesPerToken(m) > kKvBytesPerTokenMax) throw new Error(`${m.name} exceeds kKvBytesPerTokenMax`);
