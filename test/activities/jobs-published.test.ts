import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCatalog, catalogKey, publishCatalog } from '../../engine/catalog/index.ts';
import { decodeJobResult } from '../../engine/export/index.ts';
import { createLogger } from '../../platform/logger.ts';
import { createJobActivities } from '../../activities/jobs.ts';
import { createShardCache } from '../../activities/jobs-shards.ts';
import { createPublishedShardCache, layeredShardCache } from '../../activities/shards-published.ts';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { openStore, type Store } from '../../store/index.ts';
import { tempDir } from '../workflows/support/stack.ts';
import { freshBucket } from '../support/published-catalog.ts';

// Job activities on a worker that shares no filesystem with the builder: the catalog is published
// to a bucket on the suite's S3 server (moto) and the worker's catalog directory is empty.
let store: Store;
beforeAll(async () => {
  store = await openStore({ pgliteDir: 'memory://', tierLimits: DEFAULT_TIER_LIMITS });
});
afterAll(() => store?.close());

const fixture = (f: string) => join(import.meta.dirname, '..', 'fixtures', 'jobs', f);
const log = createLogger({ level: 'warn', pretty: false });

async function publishedDrugs() {
  const dir = await tempDir('jobs-pub');
  await buildCatalog({
    input: fixture('chembl-drugs-300.csv'),
    outDir: join(dir, 'build', 'drugs'),
    id: 'drugs',
    name: 'drugs',
    smilesCol: 'smiles',
    idCol: 'id',
    shardRows: 64,
    threads: 1,
    progress: false,
  });
  const bucket = await freshBucket();
  await publishCatalog({ dir: join(dir, 'build', 'drugs'), store: bucket });
  const published = await createPublishedShardCache({
    store: bucket,
    cache: { dir: join(dir, 'cache'), diskBytes: 2 ** 30, memoryBytes: 2 ** 30 },
  });
  const acts = createJobActivities({
    log,
    jobs: store.jobs,
    objects: bucket,
    catalogDir: join(dir, 'empty'),
    shards: layeredShardCache(createShardCache(join(dir, 'empty')), published),
  });
  return { bucket, published, acts };
}

describe('job activities over a catalog published in the object store', () => {
  it('scan and merge from fetched, verified shards give the similarities Python RDKit computes', async () => {
    const ref = JSON.parse(await readFile(fixture('aspirin-top25.json'), 'utf8')) as {
      top: { id: string; similarity: number }[];
    };
    const { bucket, published, acts } = await publishedDrugs();
    const prep = await acts.jobPrepare({
      jobName: 'job_p',
      smiles: 'CC(=O)Oc1ccccc1C(=O)O',
      dbNames: ['drugs'],
    });
    expect(prep.shards.length).toBeGreaterThan(3);
    expect(published.held()).toEqual([]);
    const parts = [];
    for (const s of prep.shards)
      parts.push({
        ...s,
        ...(await acts.jobScanShard({
          jobName: 'job_p',
          catalog: 'drugs',
          shard: s.shard,
          fp: prep.fp,
          k: 25,
        })),
      });
    // Every shard was fetched once, verified and is held in memory now.
    expect(published.held().map((h) => h.shard)).toEqual(prep.shards.map((s) => s.shard));
    const st = published.stats();
    expect(st.disk).toMatchObject({ misses: prep.shards.length, checksumFailures: 0 });
    const merged = await acts.jobMerge({
      jobName: 'job_p',
      parts,
      k: 25,
      fp: prep.fp,
      query: prep.canonical,
    });
    const r = decodeJobResult(await bucket.getBytes(merged.key));
    expect(r.rows).toBe(25);
    const byId = new Map(ref.top.map((t) => [t.id, t.similarity]));
    const last = ref.top[24].similarity;
    for (let i = 0; i < 25; i++) {
      expect(r.similarity[i]).toBeCloseTo(ref.top[i].similarity, 9);
      if (r.similarity[i] > last + 1e-9) expect(r.similarity[i]).toBeCloseTo(byId.get(r.id[i])!, 9);
    }
    expect(r.id[0]).toBe('CHEMBL25');
  });

  it('a shard corrupted in the object store is refetched once, then reported as corrupt_shard, never scored', async () => {
    const { bucket, published, acts } = await publishedDrugs();
    const prep = await acts.jobPrepare({ jobName: 'job_c', smiles: 'CCO', dbNames: ['drugs'] });
    const key = catalogKey('drugs', 'shard-00001.arrow');
    const bytes = await bucket.getBytes(key);
    const bad = Uint8Array.from(bytes);
    bad[Math.floor(bad.length / 2)] ^= 0xff;
    await bucket.put(key, bad);
    await expect(
      acts.jobScanShard({ jobName: 'job_c', catalog: 'drugs', shard: 1, fp: prep.fp, k: 5 }),
    ).rejects.toMatchObject({ type: 'corrupt_shard', nonRetryable: true });
    expect(published.stats().disk).toMatchObject({ checksumFailures: 2, refetches: 1 });
    expect(published.holds('drugs', 1)).toBe(false);
    expect(await bucket.head('jobs/job_c/parts/drugs-1.bin')).toBeUndefined();
    // The other shards still scan; once the object is repaired the shard scans too.
    await acts.jobScanShard({ jobName: 'job_c', catalog: 'drugs', shard: 0, fp: prep.fp, k: 5 });
    await bucket.put(key, bytes);
    const ok = await acts.jobScanShard({ jobName: 'job_c', catalog: 'drugs', shard: 1, fp: prep.fp, k: 5 });
    expect(ok.count).toBe(5);
  });
});
