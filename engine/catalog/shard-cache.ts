/**
 * The shard cache as the engine sees it: shard files come from a disk layer (a bounded directory
 * filled on demand from the object store and verified by SHA-256, implemented by
 * platform/object-store/blob-cache.ts), and loaded, scan-ready shards stay in a memory layer
 * bounded by bytes (createShardMemoryCache below). Both layers evict least recently used entries
 * and count hits, misses and evictions for /metrics.
 */

/** One object of a published catalog, with the checksum its bytes must have. */
export interface ShardObjectRef {
  key: string;
  /** Hex SHA-256 of the object's bytes. */
  sha256: string;
  /** Size in bytes, when known (lets the disk layer make room before downloading). */
  bytes?: number;
}

/** A verified local copy of an object; the disk layer keeps it until release() is called. */
export interface ShardFileLease {
  path: string;
  release(): void;
}

export interface CacheCounters {
  hits: number;
  misses: number;
  evictions: number;
  /** Bytes held now, and the budget. */
  bytes: number;
  maxBytes: number;
  entries: number;
}

/**
 * The disk layer: `acquire` returns a local file whose SHA-256 equals ref.sha256, downloading it
 * when absent. A download whose checksum differs is discarded and fetched once more; if it is
 * still wrong, acquire rejects with an error whose `code` is 'checksum_mismatch' and nothing is
 * kept, so a corrupt shard is never scored.
 */
export interface ShardFileSource {
  acquire(ref: ShardObjectRef): Promise<ShardFileLease>;
  stats(): CacheCounters & { refetches: number; checksumFailures: number; bytesFetched: number };
}

export interface ShardMemoryCacheOptions<V> {
  files: ShardFileSource;
  /** Budget of the memory layer in bytes (what `load` reports per value). */
  maxBytes: number;
  /** Turns a verified local file into a value (e.g. loadShardForScan) and says how many bytes it holds. */
  load(path: string, ref: ShardObjectRef): { value: V; bytes: number } | Promise<{ value: V; bytes: number }>;
  /** Called for values the cache drops (eviction or clear), to free what they hold. */
  dispose?(value: V): void;
}

export interface ShardMemoryCache<V> {
  /** The loaded value of ref: from memory, else loaded from the disk layer (which fetches it if needed). */
  get(ref: ShardObjectRef): Promise<V>;
  /** Whether ref is loaded in memory now (no fetch, no load). */
  has(ref: ShardObjectRef): boolean;
  stats(): { memory: CacheCounters; disk: ReturnType<ShardFileSource['stats']> };
  clear(): void;
}

interface MemoryEntry<V> {
  value: V;
  bytes: number;
}

/**
 * A memory layer over a disk layer, keyed by checksum (so a republished shard is never served
 * from a stale copy). Holds at most maxBytes of loaded values; a value larger than the whole
 * budget is returned but not kept. Concurrent gets of the same ref share one load.
 */
export function createShardMemoryCache<V>(opts: ShardMemoryCacheOptions<V>): ShardMemoryCache<V> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, MemoryEntry<V>>();
  const loading = new Map<string, Promise<V>>();
  const c = { hits: 0, misses: 0, evictions: 0, bytes: 0 };
  const keyOf = (ref: ShardObjectRef): string => `${ref.sha256}:${ref.key}`;

  function evictFor(incoming: number): void {
    for (const [key, e] of entries) {
      if (c.bytes + incoming <= opts.maxBytes) break;
      entries.delete(key);
      c.bytes -= e.bytes;
      c.evictions++;
      opts.dispose?.(e.value);
    }
  }

  async function load(ref: ShardObjectRef, key: string): Promise<V> {
    const lease = await opts.files.acquire(ref);
    let loaded: { value: V; bytes: number };
    try {
      loaded = await opts.load(lease.path, ref);
    } finally {
      lease.release();
    }
    if (loaded.bytes <= opts.maxBytes) {
      evictFor(loaded.bytes);
      entries.set(key, loaded);
      c.bytes += loaded.bytes;
    }
    return loaded.value;
  }

  return {
    get(ref) {
      const key = keyOf(ref);
      const hit = entries.get(key);
      if (hit) {
        c.hits++;
        entries.delete(key);
        entries.set(key, hit);
        return Promise.resolve(hit.value);
      }
      const pending = loading.get(key);
      if (pending) {
        c.hits++;
        return pending;
      }
      c.misses++;
      const p = load(ref, key).finally(() => loading.delete(key));
      loading.set(key, p);
      return p;
    },
    has: (ref) => entries.has(keyOf(ref)),
    stats: () => ({
      memory: { ...c, maxBytes: opts.maxBytes, entries: entries.size },
      disk: opts.files.stats(),
    }),
    clear() {
      for (const e of entries.values()) opts.dispose?.(e.value);
      entries.clear();
      c.bytes = 0;
    },
  };
}
