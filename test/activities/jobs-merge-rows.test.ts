import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalog, openCatalog, readShard } from '../../engine/catalog/index.ts';
import { decodeJobResult, type JobResult } from '../../engine/export/index.ts';
import { createLocalObjectStore } from '../../platform/object-store/index.ts';
import { createLogger } from '../../platform/logger.ts';
import { createJobActivities } from '../../activities/jobs.ts';
import { createShardCache, type ShardCache } from '../../activities/jobs-shards.ts';
import { tempDir } from '../workflows/support/stack.ts';
import { DEFAULT_TIER_LIMITS } from '../../platform/config.ts';
import { openStore, type Store } from '../../store/index.ts';

// The job merge on a worker whose shard memory is smaller than the catalog: it must read one shard
// at a time and keep only the rows that reach the result (activities/jobs-merge-rows.ts).
let store: Store;
beforeAll(async () => {
  store = await openStore({ pgliteDir: 'memory://', tierLimits: DEFAULT_TIER_LIMITS });
});
afterAll(() => store?.close());

const fixture = (f: string) => join(import.meta.dirname, '..', 'fixtures', 'jobs', f);
const log = createLogger({ level: 'warn', pretty: false });

/**
 * A shard cache with room for exactly one shard: every shard is parsed in place over one reused
 * buffer, so loading the next one overwrites the columns of the previous (as a worker that evicts
 * and reuses its memory would). A merge that kept using an earlier shard would read another
 * shard's rows. Counts the loads.
 */
function oneShardArena(catalogDir: string): ShardCache & { loads: number } {
  const files = createShardCache(catalogDir);
  let arena = new Uint8Array(0);
  const cache = {
    loads: 0,
    catalog: files.catalog,
    async shard(id: string, index: number) {
      const path = (await openCatalog(join(catalogDir, id))).shardPath(index);
      const size = statSync(path).size;
      if (arena.length < size) arena = new Uint8Array(size * 2);
      arena.fill(0);
      arena.set(readFileSync(path));
      cache.loads++;
      return readShard(arena.subarray(0, size), index);
    },
  };
  return cache;
}

async function drugs() {
  const dir = await tempDir('jobs-merge-rows');
  await buildCatalog({
    input: fixture('chembl-drugs-300.csv'),
    outDir: join(dir, 'cat', 'drugs'),
    id: 'drugs',
    name: 'drugs',
    smilesCol: 'smiles',
    idCol: 'id',
    shardRows: 64,
    threads: 1,
    progress: false,
  });
  return dir;
}

/** Runs prepare, every shard's scan (with a full cache) and the merge with `mergeCache`. */
async function job(dir: string, name: string, dbNames: string[], k: number, mergeCache?: ShardCache) {
  const objects = createLocalObjectStore(join(dir, 'objects'));
  const base = { log, jobs: store.jobs, objects, catalogDir: join(dir, 'cat') };
  const scanner = createJobActivities(base);
  const prep = await scanner.jobPrepare({ jobName: name, smiles: 'CC(=O)Oc1ccccc1C(=O)O', dbNames });
  const parts = [];
  for (const s of prep.shards)
    parts.push({ ...s, ...(await scanner.jobScanShard({ jobName: name, ...s, fp: prep.fp, k })) });
  const merger = createJobActivities({ ...base, shards: mergeCache });
  const merged = await merger.jobMerge({ jobName: name, parts, k, fp: prep.fp, query: prep.canonical });
  return { result: decodeJobResult(await objects.getBytes(merged.key)), parts: prep.shards.length };
}

const rows = (r: JobResult) =>
  Array.from({ length: r.rows }, (_, i) => [
    r.id[i],
    r.smiles[i],
    r.database[i],
    r.similarity[i],
    ...r.props.map((p) => p[i]),
  ]);

describe('job merge in bounded memory', () => {
  it('a worker holding one shard at a time merges every row of the catalog exactly as one holding them all', async () => {
    const dir = await drugs();
    const full = await job(dir, 'job_full', ['drugs'], 300);
    const arena = oneShardArena(join(dir, 'cat'));
    const one = await job(dir, 'job_one', ['drugs'], 300, arena);
    expect(full.result.rows).toBeGreaterThan(250);
    expect(rows(one.result)).toEqual(rows(full.result));
    // Each shard read once: never two at a time, never all of them held together.
    expect(arena.loads).toBe(full.parts);
    expect(full.parts).toBeGreaterThan(3);
    // A result not every row of which is known: the top 25 (aspirin first), reading only the shards reaching it.
    const top = oneShardArena(join(dir, 'cat'));
    const t25 = await job(dir, 'job_25', ['drugs'], 25, top);
    expect(rows(t25.result)).toEqual(rows(full.result).slice(0, 25));
    expect(t25.result.id[0]).toBe('CHEMBL25');
    expect(top.loads).toBeLessThanOrEqual(full.parts);
  });

  it('repeated ids (a catalog named twice) widen the rows kept until k distinct ones are found', async () => {
    const dir = await drugs();
    const once = await job(dir, 'job_once', ['drugs'], 40);
    const arena = oneShardArena(join(dir, 'cat'));
    const twice = await job(dir, 'job_twice', ['drugs', 'drugs'], 40, arena);
    expect(twice.result.rows).toBe(40);
    expect(rows(twice.result)).toEqual(rows(once.result));
    expect(new Set(twice.result.id).size).toBe(40);
    // A first round over the first 40 rows of the order finds only 20 distinct ids, so a second reads more.
    expect(arena.loads).toBeGreaterThan(twice.parts / 2);
  });
});
