import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createShardMemoryCache,
  openCatalog,
  openPublishedCatalog,
  publishCatalog,
  readShard,
  type ShardData,
} from '../../../engine/catalog/index.ts';
import { loadShardForScan, scanShardTopK } from '../../../engine/search/index.ts';
import { createBlobCache } from '../../../platform/object-store/blob-cache.ts';
import type { ObjectStore } from '../../../platform/object-store/index.ts';
import { freshBucket, writeSmallCatalog } from '../../support/published-catalog.ts';

describe('shard memory cache over the disk cache over S3', () => {
  let store: ObjectStore;
  const cat = writeSmallCatalog('mem_a');
  beforeAll(async () => {
    store = await freshBucket();
    await publishCatalog({ dir: cat.dir, store });
  });

  async function setup(maxBytes: number) {
    const remote = await openPublishedCatalog(store, 'mem_a');
    const files = await createBlobCache({ store, dir: mkdtempSync(join(tmpdir(), 'blobs-')), maxBytes: 1e9 });
    const loads: string[] = [];
    const cache = createShardMemoryCache<ShardData>({
      files,
      maxBytes,
      load(path, ref) {
        loads.push(ref.key);
        const index = remote.manifest.shards.findIndex((s) => ref.key.endsWith(s.file));
        const shard = loadShardForScan(path, index, readShard);
        return { value: shard, bytes: shard.rows * 258 };
      },
    });
    return { remote, cache, loads };
  }

  it('serves scan-ready shards whose top-k equals the top-k of the local catalog', async () => {
    const { remote, cache } = await setup(1e9);
    const local = await openCatalog(cat.dir);
    const q = cat.sorted.slice(500 * 256, 501 * 256);
    for (let i = 0; i < remote.manifest.shards.length; i++) {
      const fetched = await cache.get(remote.shardRef(i));
      const here = loadShardForScan(local.shardPath(i), i, readShard);
      expect(scanShardTopK(fetched, q, { k: 25 })).toEqual(scanShardTopK(here, q, { k: 25 }));
    }
  });

  it('keeps loaded shards within its byte budget, least recently used out first, and counts hits, misses and evictions', async () => {
    const { remote, cache, loads } = await setup(2 * 700 * 258);
    const [s0, s1, s2] = [0, 1, 2].map((i) => remote.shardRef(i));
    await cache.get(s0);
    await cache.get(s1);
    await cache.get(s0); // s1 is now the least recently used
    await cache.get(s2);
    expect([cache.has(s0), cache.has(s1), cache.has(s2)]).toEqual([true, false, true]);
    await cache.get(s1);
    const { memory, disk } = cache.stats();
    expect(memory).toMatchObject({ hits: 1, misses: 4, evictions: 2, entries: 2 });
    expect(memory.bytes).toBeLessThanOrEqual(memory.maxBytes);
    expect(loads).toEqual([s0.key, s1.key, s2.key, s1.key]);
    // The disk layer still held s1, so loading it again did not fetch it again.
    expect(disk).toMatchObject({ misses: 3, hits: 1 });
  });

  it('never loads a shard whose object is corrupt in the store', async () => {
    const { remote, cache, loads } = await setup(1e9);
    const ref = remote.shardRef(2);
    const bytes = await store.getBytes(ref.key);
    const damaged = Uint8Array.from(bytes);
    damaged[damaged.length >> 1] ^= 0x40;
    await store.put(ref.key, damaged);
    try {
      await expect(cache.get(ref)).rejects.toMatchObject({ code: 'checksum_mismatch' });
      expect(loads).toEqual([]);
      expect(cache.stats().disk).toMatchObject({ checksumFailures: 2, refetches: 1, entries: 0, bytes: 0 });
    } finally {
      await store.put(ref.key, bytes);
    }
  });
});
