/**
 * What job activities need from catalogs on the worker's disk: catalogs by id, and shards loaded
 * for scanning (kept in a byte-bounded LRU, so a worker scanning many jobs reads each shard once).
 * Also the small binary "part" format a scan writes: one shard's top-k rows and scores.
 */
import { openCatalog, readShard, type ShardData } from '../engine/catalog/reader.ts';
import type { CatalogManifest } from '../engine/catalog/schema.ts';
import { loadShardForScan } from '../engine/search/shard-memory.ts';
import { join } from 'node:path';

export interface ShardCache {
  /** The catalog's manifest (its shards and their checksums). */
  catalog(id: string): Promise<{ manifest: CatalogManifest }>;
  /** The shard parsed over its bytes in kernel memory (scan-ready). Throws when the file is missing. */
  shard(catalogId: string, index: number): Promise<ShardData>;
}

/** A shard cache over `catalogDir/<id>/` holding at most `maxBytes` of shard files (LRU). */
export function createShardCache(catalogDir: string, maxBytes = 1.5 * 2 ** 30): ShardCache {
  const catalogs = new Map<string, Promise<{ manifest: CatalogManifest; shardPath(i: number): string }>>();
  const shards = new Map<string, { data: ShardData; bytes: number }>();
  let total = 0;
  const catalog = (id: string) => {
    if (!/^[\w.-]+$/.test(id)) return Promise.reject(new Error(`bad catalog id ${JSON.stringify(id)}`));
    let c = catalogs.get(id);
    if (!c) {
      c = openCatalog(join(catalogDir, id));
      catalogs.set(id, c);
      c.catch(() => catalogs.delete(id));
    }
    return c;
  };
  return {
    catalog,
    async shard(catalogId, index) {
      const key = `${catalogId}/${index}`;
      const hit = shards.get(key);
      if (hit) {
        shards.delete(key);
        shards.set(key, hit);
        return hit.data;
      }
      const c = await catalog(catalogId);
      if (index < 0 || index >= c.manifest.shards.length)
        throw new RangeError(`catalog ${catalogId} has no shard ${index}`);
      const data = loadShardForScan(c.shardPath(index), index, readShard);
      const bytes = data.fingerprints.buffer.byteLength;
      shards.set(key, { data, bytes });
      total += bytes;
      for (const [k, v] of shards) {
        if (total <= maxBytes || k === key) break;
        shards.delete(k);
        total -= v.bytes;
      }
      return data;
    },
  };
}

const PART_MAGIC = 0x4d53504b; // 'MSPK'

/** Encodes a shard's top-k (rows sorted best first) as: magic, count, rows (i32), scores (f32). */
export function encodePart(rows: Int32Array, scores: Float32Array): Uint8Array {
  const n = rows.length;
  const buf = new ArrayBuffer(8 + n * 8);
  const head = new Uint32Array(buf, 0, 2);
  head[0] = PART_MAGIC;
  head[1] = n;
  new Int32Array(buf, 8, n).set(rows);
  new Float32Array(buf, 8 + n * 4, n).set(scores);
  return new Uint8Array(buf);
}

/** Decodes a part written by encodePart; throws on anything else. */
export function decodePart(bytes: Uint8Array): { rows: Int32Array; scores: Float32Array } {
  const copy = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const head = new Uint32Array(copy.buffer, copy.byteOffset, 2);
  if (head[0] !== PART_MAGIC || copy.byteLength !== 8 + head[1] * 8) throw new Error('not a scan part');
  const n = head[1];
  return {
    rows: new Int32Array(copy.buffer, copy.byteOffset + 8, n),
    scores: new Float32Array(copy.buffer, copy.byteOffset + 8 + n * 4, n),
  };
}
