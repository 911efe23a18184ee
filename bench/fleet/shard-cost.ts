/**
 * Per-shard costs that docs/scaling.md projects the fleet from, on the fingerprint benchmark's
 * catalog (run bench/fingerprint/run.ts --n N once first; shards of 131,072 rows):
 *
 * - fetch: publish the catalog to a real S3-compatible server (moto, on loopback) and fetch every
 *   shard through the shard cache's disk layer (download + SHA-256 + rename), MB/s;
 * - load: read a shard file into kernel memory, parse it and compute its screens, ms per shard;
 * - scan: the k-NN (k=100) per shard for real queries, CPU time, (a) "cold": every shard on its
 *   own with no floor, as a fan-out to holders that share nothing, and (b) "chained": shards in
 *   bound order, each seeded with the k-th score so far, as one worker scanning its own shards;
 * - memory: bytes per row in kernel memory (shard file + 32-byte screen).
 *
 * `node bench/fleet/shard-cost.ts [--n 1000000] [--queries 20]`; writes bench/out/shard-cost-<n>.json.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openCatalog, openPublishedCatalog, publishCatalog, readShard } from '../../engine/catalog/index.ts';
import { loadShardForScan, scanShardTopK } from '../../engine/search/index.ts';
import { BLOCK_BYTES } from '../../engine/search/wasm/kernel-blocks.ts';
import { createBlobCache } from '../../platform/object-store/blob-cache.ts';
import { createS3ObjectStore } from '../../platform/object-store/index.ts';
import { startS3Server } from '../../testkit/s3-server.ts';
import { cpuSeconds } from '../fingerprint/kernel-bench.ts';
import { knnSerial, median, spread } from '../fingerprint/knn.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'bench/out');
const argv = process.argv.slice(2);
const arg = (name: string, def: number): number =>
  argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def;
const n = arg('--n', 1_000_000);
const nq = arg('--queries', 20);
const k = 100;
const log = (...a: unknown[]): void => console.log(...a);

const catalog = await openCatalog(join(OUT, `catalog-${n}`));
const shardsMeta = catalog.manifest.shards;
const fps = readFileSync(join(OUT, `fps-${n}.u8`));
const qrows = (JSON.parse(readFileSync(join(OUT, `queries-${n}-50.json`), 'utf8')) as number[]).slice(0, nq);
const queries = qrows.map((r) => new Uint8Array(fps.subarray(r * 256, r * 256 + 256)));
log(`${n.toLocaleString()} rows in ${shardsMeta.length} shards; load average ${loadavg()[0].toFixed(1)}`);

// Fetch through the disk cache from moto S3 (process on loopback: measures our download + hash path).
const s3 = await startS3Server();
let fetchMBs = 0;
try {
  const store = createS3ObjectStore({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: 'bench',
    accessKeyId: 'x',
    secretAccessKey: 'x',
    forcePathStyle: true,
  });
  await store.ensureBucket();
  await publishCatalog({ dir: catalog.dir, store });
  const remote = await openPublishedCatalog(store, catalog.manifest.id);
  const cache = await createBlobCache({
    store,
    dir: mkdtempSync(join(tmpdir(), 'shard-cost-')),
    maxBytes: 2 ** 40,
  });
  const t = performance.now();
  for (let i = 0; i < shardsMeta.length; i++) (await cache.acquire(remote.shardRef(i))).release();
  fetchMBs = cache.stats().bytesFetched / 1e6 / ((performance.now() - t) / 1000);
  log(`fetch + SHA-256 from S3 (moto, loopback): ${fetchMBs.toFixed(0)} MB/s`);
} finally {
  await s3.stop();
}

// Load: file -> kernel memory, parse, screens.
const loadMs: number[] = [];
const shards = shardsMeta.map((_, i) => {
  const c = process.cpuUsage();
  const s = loadShardForScan(catalog.shardPath(i), i, readShard);
  scanShardTopK(s, queries[0], { k: 1 }); // computes the screens
  loadMs.push(cpuSeconds(c) * 1000);
  return s;
});
const fileBytes = shardsMeta.reduce((s, _, i) => s + readFileSync(catalog.shardPath(i)).length, 0);
const bytesPerRow = fileBytes / n + BLOCK_BYTES;
log(`load a shard of ${shardsMeta[0].rows} rows (read, parse, screens): ${spread(loadMs, 0)} ms CPU`);
log(
  `kernel memory per row: ${bytesPerRow.toFixed(0)} B (file ${(fileBytes / n).toFixed(0)} + screen ${BLOCK_BYTES}); fingerprint, popcount and screen alone: ${256 + 2 + BLOCK_BYTES} B`,
);

// Scan: cold (each shard alone) and chained (one worker, floor carried), CPU ms per 1M rows.
const cold: number[] = [];
const chained: number[] = [];
for (const q of queries) {
  const c = process.cpuUsage();
  for (const s of shards) scanShardTopK(s, q, { k });
  cold.push((cpuSeconds(c) * 1000 * 1e6) / n);
  chained.push((knnSerial('bench', shards, q, k, true).cpuMs * 1e6) / n);
}
log(
  `k-NN (k=${k}) CPU ms per 1M rows, median (min–max) of ${nq} queries: cold shards ${spread(cold)}, chained ${spread(chained)}`,
);
writeFileSync(
  join(OUT, `shard-cost-${n}.json`),
  JSON.stringify(
    {
      n,
      shardRows: shardsMeta[0].rows,
      loadavg: loadavg(),
      fetchMBs,
      loadMsPerShard: median(loadMs),
      bytesPerRow,
      scanMsPer1M: { cold: median(cold), chained: median(chained), coldAll: cold, chainedAll: chained },
    },
    null,
    2,
  ),
);
