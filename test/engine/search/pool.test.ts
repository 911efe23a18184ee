import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSearchPool, type SearchPool } from '../../../engine/search/pool.ts';
import { prepareCentroid, prepareTanimoto } from '../../../engine/search/query.ts';
import { exhaustiveTopK, type RefShard } from './support/reference.ts';
import { fixtureFps, randomFps, readTestShard, writeTestCatalog } from './support/shards.ts';
import { writeFormatCatalog } from '../../../testkit/format-catalog.ts';
import { openCatalog } from '../../../engine/catalog/reader.ts';

const dir = mkdtempSync(join(tmpdir(), 'search-pool-'));
const fpsA = randomFps(12000, 21);
// Catalog b repeats 2,000 fingerprints of a, so cross-catalog ties exist and must order by catalog id.
const fpsB = new Uint8Array([...fixtureFps(), ...fpsA.subarray(0, 2000 * 256)]);
const catA = writeTestCatalog(join(dir, 'a'), 'cat-a', fpsA, 2500);
const catB = writeTestCatalog(join(dir, 'b'), 'cat-b', fpsB, 1000);

function refShards(cat: typeof catA): RefShard[] {
  return cat.manifest.shards.map((s, i) => {
    const start = cat.manifest.shards.slice(0, i).reduce((n, x) => n + x.rows, 0);
    return {
      catalog: cat.manifest.id,
      shard: i,
      fps: cat.sorted.subarray(start * 256, (start + s.rows) * 256),
    };
  });
}
const ref = [...refShards(catA), ...refShards(catB)];
const query = (cat: typeof catA, row: number): Uint8Array => cat.sorted.slice(row * 256, row * 256 + 256);

let pool: SearchPool;
beforeAll(async () => {
  pool = createSearchPool({ threads: 2, readShard: readTestShard, segmentRows: 700 });
  await pool.loadCatalog(catA);
  await pool.loadCatalog(catB);
});
afterAll(() => pool?.close());

describe('search pool', () => {
  it('loads every shard once and reports it', () => {
    const s = pool.stats();
    expect(s).toMatchObject({ threads: 2, catalogs: ['cat-a', 'cat-b'], shards: 5 + 3, rows: 12000 + 2300 });
    expect(pool.shard('cat-b', 2)?.rows).toBe(300);
  });

  it('parallel k-NN equals the exhaustive serial result exactly, including cross-catalog ties', async () => {
    for (const [row, k, threshold] of [
      [17, 50, undefined],
      [5000, 200, undefined],
      [11999, 10, 0.25],
      [300, 3000, undefined],
    ] as const) {
      const q = query(catA, row);
      const got = await pool.knn({ catalogs: ['cat-a', 'cat-b'], query: q, k, threshold });
      expect(got).toEqual(exhaustiveTopK(ref, prepareTanimoto(q), k, threshold));
    }
  });

  it('a fingerprint present in both catalogs ranks its copies by catalog id, whatever the request order', async () => {
    const q = fpsA.slice(5 * 256, 6 * 256); // row 5 of a is also in b, and duplicated nowhere else
    const hits = await pool.knn({ catalogs: ['cat-b', 'cat-a'], query: q, k: 3 });
    expect(hits.slice(0, 2).map((h) => [h.catalog, h.similarity])).toEqual([
      ['cat-a', 1],
      ['cat-b', 1],
    ]);
    expect(hits[2].similarity).toBeLessThan(1);
  });

  it('concurrent searches do not interfere', async () => {
    const qs = [1, 2000, 4000, 8000, 10000].map((r) => query(catA, r));
    const got = await Promise.all(qs.map((q) => pool.knn({ catalogs: ['cat-a'], query: q, k: 25 })));
    got.forEach((hits, i) =>
      expect(hits).toEqual(
        exhaustiveTopK(
          ref.filter((s) => s.catalog === 'cat-a'),
          prepareTanimoto(qs[i]),
          25,
        ),
      ),
    );
  });

  it('batch mode returns one exact top-k per query, in query order', async () => {
    const qs = [query(catB, 0), query(catB, 150), query(catA, 9000)];
    const got = await pool.knnMany({ catalogs: ['cat-a', 'cat-b'], queries: qs, k: 30 });
    expect(got).toEqual(qs.map((q) => exhaustiveTopK(ref, prepareTanimoto(q), 30)));
  });

  it('centroid mode ranks by continuous Tanimoto to the mean fingerprint, equal to the exhaustive scan', async () => {
    const qs = [query(catB, 10), query(catB, 20), query(catB, 30)];
    const got = await pool.centroid({ catalogs: ['cat-a', 'cat-b'], queries: qs, k: 40 });
    expect(got).toEqual(exhaustiveTopK(ref, prepareCentroid(qs), 40));
  });

  it('BitBound skips rows: a high threshold scores a fraction of the catalog', async () => {
    const before = pool.stats().rowsScanned;
    await pool.knn({ catalogs: ['cat-a'], query: query(catA, 6000), k: 10, threshold: 0.9 });
    expect(pool.stats().rowsScanned - before).toBeLessThan(12000 / 2);
  });

  it('rejects unknown catalogs and bad k with typed errors', async () => {
    await expect(pool.knn({ catalogs: ['nope'], query: query(catA, 0), k: 5 })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(pool.knn({ catalogs: ['cat-a'], query: query(catA, 0), k: -1 })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });

  it('close terminates every worker thread and rejects later searches', async () => {
    // OS threads of this process (Linux): worker threads are real threads, so they show up here.
    const threads = (): number => readdirSync('/proc/self/task').length;
    const before = threads();
    const p = createSearchPool({ threads: 3, readShard: readTestShard });
    await p.loadCatalog(catB);
    expect(threads() - before).toBeGreaterThanOrEqual(3);
    await p.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(threads()).toBeLessThanOrEqual(before);
    expect(p.stats().busyThreads).toBe(0);
    await expect(p.knn({ catalogs: ['cat-b'], query: query(catB, 0), k: 1 })).rejects.toMatchObject({
      code: 'unavailable',
    });
  });

  it('scans a real catalog through the catalog reader by default, zero-copy, with exact results', async () => {
    const fps = randomFps(3000, 99);
    const { sorted } = writeFormatCatalog(join(dir, 'fmt'), 'fmt', fps, 1000);
    const p = createSearchPool({ threads: 2 });
    try {
      await p.loadCatalog(await openCatalog(join(dir, 'fmt')));
      const q = sorted.slice(1234 * 256, 1235 * 256);
      const shards: RefShard[] = [0, 1, 2].map((i) => ({
        catalog: 'fmt',
        shard: i,
        fps: sorted.subarray(i * 1000 * 256, (i + 1) * 1000 * 256),
      }));
      expect(await p.knn({ catalogs: ['fmt'], query: q, k: 40 })).toEqual(
        exhaustiveTopK(shards, prepareTanimoto(q), 40),
      );
      expect(p.shard('fmt', 1)?.fingerprints.buffer).toBeInstanceOf(SharedArrayBuffer);
    } finally {
      await p.close();
    }
  });
});
