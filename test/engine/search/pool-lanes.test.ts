import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSearchPool, type SearchPool } from '../../../engine/search/pool.ts';
import { prepareTanimoto } from '../../../engine/search/query.ts';
import { exhaustiveTopK } from './support/reference.ts';
import { randomFps, readTestShard, writeTestCatalog } from './support/shards.ts';

// One 120,000-row catalog in one shard: a batch of 200 queries over it is seconds of CPU.
const dir = mkdtempSync(join(tmpdir(), 'search-lanes-'));
const fps = randomFps(120_000, 5);
const cat = writeTestCatalog(join(dir, 'big'), 'big', fps, 120_000);
const row = (i: number) => cat.sorted.slice(i * 256, i * 256 + 256);
const batch = (from: number) => Array.from({ length: 200 }, (_, i) => row(from + i * 97));

let pool: SearchPool;
beforeAll(async () => {
  pool = createSearchPool({ threads: 2, readShard: readTestShard });
  await pool.loadCatalog(cat);
});
afterAll(() => pool?.close());

describe('search pool: no search can stall the others', () => {
  it('answers a single-query search while three 200-query batches run, before any of them ends', async () => {
    const ended: number[] = [];
    const batches = [0, 1, 2].map((b) =>
      pool
        .knnMany({ catalogs: ['big'], queries: batch(b * 7), k: 10 })
        .then((r) => (ended.push(Date.now()), r)),
    );
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const hits = await pool.knn({ catalogs: ['big'], query: row(4242), k: 5 });
    const answered = Date.now();
    expect(hits).toEqual(
      exhaustiveTopK([{ catalog: 'big', shard: 0, fps: cat.sorted }], prepareTanimoto(row(4242)), 5),
    );
    const results = await Promise.all(batches);
    expect(answered).toBeLessThan(Math.min(...ended));
    // Generous for a loaded 2-core machine; a FIFO queue would put it after whole batch tasks.
    expect(answered - t0).toBeLessThan(3000);
    // Smaller tasks change nothing in the answer: a batch equals its queries' exhaustive top-k.
    const qs = batch(0);
    for (const qi of [0, 99, 199])
      expect(results[0][qi]).toEqual(
        exhaustiveTopK([{ catalog: 'big', shard: 0, fps: cat.sorted }], prepareTanimoto(qs[qi]), 10),
      );
  });

  it('rejects a search at its deadline, queue included, and withdraws its queued work', async () => {
    const hog = [0, 1].map((b) => pool.knnMany({ catalogs: ['big'], queries: batch(b * 3), k: 10 }));
    const t0 = Date.now();
    const late = await pool
      .knnMany({ catalogs: ['big'], queries: batch(11), k: 10, deadline: Date.now() + 100 })
      .catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'overloaded', message: /deadline/ });
    expect(Date.now() - t0).toBeLessThan(1000);
    const gone = new AbortController();
    const withdrawn = pool
      .knnMany({ catalogs: ['big'], queries: batch(13), k: 10, signal: gone.signal })
      .catch((e: unknown) => e);
    gone.abort(new Error('client closed the connection'));
    expect(await withdrawn).toBeInstanceOf(Error);
    await Promise.all(hog);
    // Nothing of the two abandoned searches is left to run.
    expect(pool.stats()).toMatchObject({ busyThreads: 0, queuedSearches: 0 });
  });
});
