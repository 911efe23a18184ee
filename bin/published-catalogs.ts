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
import { listMembers, type FleetMember } from '../engine/fleet/members.ts';
import { createFleetSearch, type FleetSearch } from '../api/services/fleet-search.ts';

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

/**
 * FLEET_SEARCH: published catalogs (not in `skip`) are answered by the scan workers holding their
 * shards; the API opens only their manifests (verified) and never loads a shard.
 */
export async function openFleetSearch(
  config: Pick<Config, 'catalogs' | 'fleet' | 'temporal'>,
  objects: ObjectStore,
  log: Logger,
  skip: Set<string>,
): Promise<FleetSearch | undefined> {
  const ids = (await listPublishedCatalogs(objects)).filter(
    (id) => !skip.has(id) && (!config.catalogs.length || config.catalogs.includes(id)),
  );
  const manifests = [];
  for (const id of ids) {
    try {
      manifests.push((await openPublishedCatalog(objects, id)).manifest);
    } catch (err) {
      log.error({ err, catalog: id }, 'published catalog not served: its manifest failed to open or verify');
    }
  }
  if (!manifests.length) return undefined;
  // Membership is read at most once a second, not per request.
  let cached: { at: number; live: Promise<FleetMember[]> } | undefined;
  const members = () => {
    if (!cached || Date.now() - cached.at > 1000) {
      const live = listMembers(objects, config.temporal.taskQueuePrefix, config.fleet.staleMs).then(
        (l) => l.live,
      );
      cached = { at: Date.now(), live };
      live.catch(() => (cached = undefined));
    }
    return cached.live;
  };
  log.info({ catalogs: manifests.map((m) => m.id) }, 'catalogs answered by the scan fleet');
  return createFleetSearch({
    manifests,
    members,
    budgetMs: config.fleet.searchBudgetMs,
    token: config.fleet.token,
    log,
  });
}
