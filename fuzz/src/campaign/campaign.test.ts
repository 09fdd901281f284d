import { describe, expect, it } from 'vitest';
import { batchOfShard, batchSeed } from './batch-seed.js';
import { runTargetCampaign } from './campaign.js';
import { runCampaignJob } from './campaign-job.js';
import { WorkerPool } from './worker-pool.js';

describe('fuzz:campaign,determinism', () => {
  it('replays the same batch identically', async () => {
    const job = { target: 'allocator', mutant: null, seed: batchSeed(42, 3), numRuns: 30, timeLimitMs: 60_000 };
    const a = await runCampaignJob(job, () => {});
    const b = await runCampaignJob(job, () => {});
    expect(a.report.runs).toBe(30);
    expect(b.report.commands).toBe(a.report.commands);
  });

  it('replays the same failing batch to the same shrunk program', async () => {
    const job = { target: 'prefix-cache', mutant: 'no-coalescing', seed: batchSeed(7, 0), numRuns: 10_000, timeLimitMs: 60_000 };
    const a = await runCampaignJob(job, () => {});
    const b = await runCampaignJob(job, () => {});
    expect(a.report.failed).toBe(true);
    expect(b.report.failure?.program).toEqual(a.report.failure?.program);
    expect(b.report.failure?.path).toEqual(a.report.failure?.path);
  });

  it('gives shards disjoint batches that together cover every batch', () => {
    const seen = new Map<number, number>();
    for (let index = 0; index < 4; index++) for (let k = 0; k < 25; k++) seen.set(batchOfShard({ index, count: 4 }, k), index);
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(batchOfShard({ index: 1, count: 3 }, 2)).toBe(7);
  });

  it('mixes the campaign seed and the batch number', () => {
    const seeds = new Set(Array.from({ length: 1000 }, (_, i) => batchSeed(1, i)));
    expect(seeds.size).toBe(1000);
    expect(batchSeed(1, 5)).not.toBe(batchSeed(2, 5));
  });
});

describe('fuzz:campaign,time box', () => {
  // One target's campaign on an in-thread pool, for `timeMs`.
  const campaign = async (timeMs: number) => {
    const pool = new WorkerPool(1);
    try {
      return await runTargetCampaign(pool, { target: 'allocator', mutant: null, seed: 42, shard: { index: 0, count: 1 }, timeMs }, () => {});
    } finally {
      await pool.close();
    }
  };

  it('gives a target whose time ran out before one run finished one run past it, never a clean result on nothing', async () => {
    const c = await campaign(0);
    expect(c.runs).toBe(1);
    expect(c.batches).toBe(1);
    expect(c.failure).toBeNull();
  });

  it('runs batches of many runs while its time lasts', async () => {
    const c = await campaign(200);
    expect(c.runs).toBeGreaterThan(1);
    expect(c.batches).toBeGreaterThanOrEqual(1);
  });
});
