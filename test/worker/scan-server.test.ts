import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSyntheticCatalog } from '../../testkit/synthetic-catalog.ts';
import { listCatalogs, publishCatalog, readShard } from '../../engine/catalog/index.ts';
import {
  loadShardForScan,
  mergeHits,
  prepareCentroid,
  scanShardTopK,
  type Hit,
} from '../../engine/search/index.ts';
import { createLocalObjectStore } from '../../platform/object-store/index.ts';
import { createPublishedShardCache } from '../../activities/shards-published.ts';
import { createLogger } from '../../platform/logger.ts';
import { startScanServer, type ScanServer } from '../../worker/scan-server.ts';

// A worker's scan endpoint over a catalog published to a local object store: a weight vector (the
// centroid of the fleet's /batch_search) is ranked exactly as scanning the catalog's shards here.
let dir: string;
let server: ScanServer;
let shards: ReturnType<typeof readShard>[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan-server-'));
  await writeSyntheticCatalog(join(dir, 'built'), 'scancat', 12_000, 4_000, 5);
  const store = createLocalObjectStore(join(dir, 'objects'));
  await publishCatalog({ dir: join(dir, 'built', 'scancat'), store });
  const [catalog] = await listCatalogs(join(dir, 'built'));
  shards = catalog.manifest.shards.map((_, i) => loadShardForScan(catalog.shardPath(i), i, readShard));
  const published = await createPublishedShardCache({
    store,
    cache: { dir: join(dir, 'cache'), diskBytes: 1e9, memoryBytes: 1e9 },
  });
  server = await startScanServer({
    host: '127.0.0.1',
    port: 0,
    published,
    log: createLogger({ level: 'silent', pretty: false }),
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const scan = (body: unknown) =>
  fetch(`${server.url}/internal/scan`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the scan endpoint', () => {
  it('ranks by a weight vector (a centroid) exactly as the shards scanned in process', async () => {
    // Three rows' fingerprints as the centroid's inputs: the mean bit-frequency vector.
    const centroid = prepareCentroid(
      [0, 5, 9].map((r) => shards[1].fingerprints.slice(r * 256, r * 256 + 256)),
    );
    const k = 50;
    let expected: Hit[] = [];
    for (const s of shards) {
      const got = scanShardTopK(s, centroid, { k });
      const part = Array.from(got.rows, (row, j) => ({
        catalog: 'scancat',
        shard: s.index,
        row,
        similarity: got.scores[j],
      }));
      expected = mergeHits(expected, part, k);
    }
    const weights = Buffer.from(centroid.weights.buffer).toString('base64');
    const res = await scan({ catalog: 'scancat', shards: [1, 0, 2], weights, k });
    expect(res.status).toBe(200);
    const a = (await res.json()) as {
      done: number[];
      parts: { shard: number; rows: number[]; scores: number[] }[];
    };
    expect(a.done).toEqual([1, 0, 2]);
    const got = a.parts
      .flatMap((p) =>
        p.rows.map((row, j) => ({ catalog: 'scancat', shard: p.shard, row, similarity: p.scores[j] })),
      )
      .sort((x, y) => y.similarity - x.similarity || x.shard - y.shard || x.row - y.row);
    expect(got).toEqual(expected);
    expect(got[0].similarity).toBeGreaterThan(0.3);
  });

  it('answers 422 naming the field for a query that is not exactly one of fp and weights', async () => {
    const fp = Buffer.from(shards[0].fingerprints.slice(0, 256)).toString('base64');
    const both = await scan({ catalog: 'scancat', shards: [0], fp, weights: fp, k: 5 });
    expect(both.status).toBe(422);
    expect(((await both.json()) as { error: string }).error).toMatch(/fp or weights/);
    const short = await scan({ catalog: 'scancat', shards: [0], weights: fp, k: 5 });
    expect(short.status).toBe(422);
    expect(((await short.json()) as { error: string }).error).toMatch(/^weights: expected 2048/);
    const nan = await scan({
      catalog: 'scancat',
      shards: [0],
      weights: Buffer.from(new Float64Array(2048).fill(NaN).buffer).toString('base64'),
      k: 5,
    });
    expect(nan.status).toBe(422);
  });
});
