/**
 * The API's view of catalogs published in the object store (S3_BUCKET): each one not present in
 * CATALOG_DIR is opened from the store (manifest verified) and its shard files fetched into the
 * API's disk cache (SHA-256 verified, refetched once on a mismatch), so the search pool and the v2
 * libraries load them like local catalogs. A catalog that fails verification is skipped with an
 * error in the log, never served.
 */
import { join } from 'node:path';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import { createBlobCache } from '../platform/object-store/blob-cache.ts';
import { listPublishedCatalogs, openPublishedCatalog, type Catalog } from '../engine/catalog/index.ts';

/** Published catalogs (restricted to config.catalogs when set) whose ids are not in `skip`. */
export async function fetchPublishedCatalogs(
  config: Pick<Config, 'shardCache' | 'catalogs'>,
  objects: ObjectStore,
  log: Logger,
  skip: Set<string>,
): Promise<Catalog[]> {
  const ids = (await listPublishedCatalogs(objects)).filter(
    (id) => !skip.has(id) && (!config.catalogs.length || config.catalogs.includes(id)),
  );
  if (!ids.length) return [];
  // Its own directory: scan workers in the same process keep theirs (bin/worker-deps.ts).
  const dir = join(config.shardCache.dir, 'api');
  const files = await createBlobCache({ store: objects, dir, maxBytes: config.shardCache.diskBytes });
  const out: Catalog[] = [];
  for (const id of ids) {
    try {
      const c = await openPublishedCatalog(objects, id);
      // The pool reads every shard at load; the leases keep the files from eviction meanwhile.
      const paths: string[] = [];
      for (let i = 0; i < c.manifest.shards.length; i++)
        paths.push((await files.acquire(c.shardRef(i))).path);
      out.push({ dir, manifest: c.manifest, shardPath: (i) => paths[i] });
      log.info({ catalog: id, shards: paths.length }, 'catalog fetched from the object store');
    } catch (err) {
      log.error({ err, catalog: id }, 'published catalog not served: it failed to open or verify');
    }
  }
  return out;
}
