/**
 * The seed of batch `batch` of a campaign seeded `seed`: a fixed mix of the two, so batch k is the
 * same runs whichever worker, shard layout or time budget reaches it.
 */
export function batchSeed(seed: number, batch: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(batch + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h | 0;
}

/** A shard `i/n`: this job covers batches i, i + n, i + 2n, … of the campaign. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** The k-th batch this shard runs. */
export function batchOfShard(shard: Shard, k: number): number {
  return shard.index + k * shard.count;
}
