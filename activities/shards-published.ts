/**
 * Shards of catalogs published in the object store, for scan workers that share no filesystem:
 * manifests are opened from the store (verified), shard files come through the bounded disk cache
 * (platform/object-store/blob-cache.ts: fetched on demand, SHA-256 checked, refetched once on a
 * mismatch, evicted by size) and loaded, scan-ready shards stay in the memory layer
 * (engine/catalog/shard-cache.ts). A worker reports which shards it holds in memory, which is what
 * shard placement announces (fleet/).
 */
import { readShard, type ShardData } from '../engine/catalog/reader.ts';
import {
  listPublishedCatalogs,
  openPublishedCatalog,
  type CatalogObjectStore,
  type PublishedCatalog,
} from '../engine/catalog/published.ts';
import { createShardMemoryCache, type ShardMemoryCache } from '../engine/catalog/shard-cache.ts';
import { loadShardForScan } from '../engine/search/shard-memory.ts';
import { createBlobCache } from '../platform/object-store/blob-cache.ts';
import type { ObjectStore } from '../platform/object-store/types.ts';
import type { ShardCache } from './jobs-shards.ts';

/** A shard loaded in this process's memory. */
export interface HeldShard {
  catalog: string;
  shard: number;
  sha256: string;
  rows: number;
}

export interface PublishedShardCache extends ShardCache {
  /** Ids of the catalogs published in the store. */
  published(): Promise<string[]>;
  /** Shards loaded in memory now, by catalog then index. */
  held(): HeldShard[];
  /** Whether the shard is in memory now (no fetch). */
  holds(catalogId: string, index: number): boolean;
  stats(): ReturnType<ShardMemoryCache<ShardData>['stats']>;
  /** Forgets opened manifests, so a republished catalog is read again. */
  refresh(): void;
}

export interface PublishedShardCacheOptions {
  store: CatalogObjectStore & Pick<ObjectStore, 'getStream' | 'head'>;
  /** config.shardCache: disk directory and budgets. */
  cache: { dir: string; diskBytes: number; memoryBytes: number };
}

/** The shard cache over the object store's published catalogs. */
export async function createPublishedShardCache(
  opts: PublishedShardCacheOptions,
): Promise<PublishedShardCache> {
  const files = await createBlobCache({
    store: opts.store,
    dir: opts.cache.dir,
    maxBytes: opts.cache.diskBytes,
  });
  // The memory layer keys by object; the loader needs the shard index the object is.
  const indexOfKey = new Map<string, number>();
  const memory = createShardMemoryCache<ShardData>({
    files,
    maxBytes: opts.cache.memoryBytes,
    load(path, ref) {
      const data = loadShardForScan(path, indexOfKey.get(ref.key) ?? 0, readShard);
      return { value: data, bytes: data.fingerprints.buffer.byteLength };
    },
  });
  let opened = new Map<string, Promise<PublishedCatalog>>();
  const catalog = (id: string): Promise<PublishedCatalog> => {
    let p = opened.get(id);
    if (!p) {
      p = openPublishedCatalog(opts.store, id);
      opened.set(id, p);
      p.catch(() => opened.delete(id));
    }
    return p;
  };
  const settled = new Map<string, PublishedCatalog>();
  return {
    async catalog(id) {
      const c = await catalog(id);
      settled.set(id, c);
      return c;
    },
    async shard(catalogId, index) {
      const c = await catalog(catalogId);
      settled.set(catalogId, c);
      if (index < 0 || index >= c.manifest.shards.length)
        throw new RangeError(`catalog ${catalogId} has no shard ${index}`);
      const ref = c.shardRef(index);
      indexOfKey.set(ref.key, index);
      return memory.get(ref);
    },
    published: () => listPublishedCatalogs(opts.store),
    held() {
      const out: HeldShard[] = [];
      for (const c of [...settled.values()].sort((a, b) => a.id.localeCompare(b.id)))
        c.manifest.shards.forEach((s, i) => {
          if (memory.has(c.shardRef(i)))
            out.push({ catalog: c.id, shard: i, sha256: s.sha256, rows: s.rows });
        });
      return out;
    },
    holds(catalogId, index) {
      const c = settled.get(catalogId);
      return Boolean(c && index < c.manifest.shards.length && memory.has(c.shardRef(index)));
    },
    stats: () => memory.stats(),
    refresh() {
      opened = new Map();
    },
  };
}

/**
 * Local catalogs first (CATALOG_DIR, the embedded default), then the published ones: a catalog
 * present in both is read from the local copy.
 */
export function layeredShardCache(local: ShardCache, published: ShardCache): ShardCache {
  const source = new Map<string, Promise<ShardCache>>();
  const pick = (id: string): Promise<ShardCache> => {
    let p = source.get(id);
    if (!p) {
      p = local.catalog(id).then(
        () => local,
        () => published.catalog(id).then(() => published),
      );
      source.set(id, p);
      p.catch(() => source.delete(id));
    }
    return p;
  };
  return {
    catalog: async (id) => (await pick(id)).catalog(id),
    shard: async (id, index) => (await pick(id)).shard(id, index),
  };
}
