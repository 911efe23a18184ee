/**
 * What a process's Temporal workers need, opened in one place for the embedded stack
 * (`molsearch start`) and the standalone worker (`molsearch worker`) alike: the metadata store, the
 * object store, the libraries run items execute over, the selection threads, and the activities
 * built over them. The stack passes what it already opened for the API (PGlite allows one handle
 * per process; the libraries share the API's search pool); close() closes only what was opened here.
 */
import { join, resolve } from 'node:path';
import { listMembers } from '../engine/fleet/members.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { openObjectStore, type ObjectStore } from '../platform/object-store/index.ts';
import { openStore, type Store } from '../store/index.ts';
import {
  catalogRegistry,
  createSelectionPool,
  type LibraryRegistry,
  type SelectionPool,
} from '../engine/selection/index.ts';
import { createActivities, type Activities } from '../activities/index.ts';
import type { SpacePool } from '../engine/synthons/space-pool.ts';
import { createShardCache } from '../activities/jobs-shards.ts';
import { createShapePool } from '../engine/shape/index.ts';
import {
  createPublishedShardCache,
  layeredShardCache,
  type PublishedShardCache,
} from '../activities/shards-published.ts';

export interface WorkerDeps {
  store: Store;
  objects: ObjectStore;
  libraries: LibraryRegistry;
  selectionPool: SelectionPool;
  activities: Activities;
  /** With S3_BUCKET: the shards of published catalogs this process fetched and holds (placement). */
  published?: PublishedShardCache;
  /** Closes what openWorkerDeps opened (not what it was given). */
  close(): Promise<void>;
}

export async function openWorkerDeps(
  config: Config,
  log: Logger,
  given: Partial<Pick<WorkerDeps, 'store' | 'objects' | 'libraries' | 'selectionPool'>> & {
    /** Synthon spaces run items may name (the embedded stack's; a standalone worker opens none). */
    spaces?: SpacePool;
  } = {},
): Promise<WorkerDeps> {
  const opened: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const fn of opened.splice(0).reverse()) await fn();
  };
  try {
    let store = given.store;
    if (!store) {
      store = await openStore(config, log);
      opened.push(store.close);
    }
    const objects = given.objects ?? (await openObjectStore(config));
    const libraries = given.libraries ?? catalogRegistry(config.catalogDir, { ids: config.catalogs });
    let selectionPool = given.selectionPool;
    if (!selectionPool) {
      // Run items' selections execute on a thread, so the Temporal worker keeps heartbeating meanwhile.
      selectionPool = createSelectionPool({ threads: 1, log });
      opened.push(selectionPool.close);
    }
    // With S3_BUCKET, catalogs not in CATALOG_DIR are read from the object store through the cache.
    const published = config.s3
      ? await createPublishedShardCache({
          store: objects,
          // Its own directory: an API in the same process keeps its own (bin/published-catalogs.ts).
          cache: { ...config.shardCache, dir: join(config.shardCache.dir, 'scan') },
        })
      : undefined;
    // 3D job scans align on these threads (idle threads do not hold the process open).
    const shapePool = createShapePool({ threads: Math.min(2, config.engineThreads) });
    opened.push(shapePool.close);
    const activities = createActivities({
      log,
      store,
      shapePool,
      objects,
      catalogDir: config.catalogDir,
      spaceDir: resolve(config.dataDir, 'spaces'),
      largeSpaceProducts: config.largeSpaceProducts,
      shards: published && layeredShardCache(createShardCache(config.catalogDir), published),
      fleet: published
        ? async () => (await listMembers(objects, config.temporal.taskQueuePrefix, config.fleet.staleMs)).live
        : undefined,
      libraries,
      selectionPool,
      spaces: given.spaces,
    });
    return { store, objects, libraries, selectionPool, activities, published, close };
  } catch (err) {
    await close();
    throw err;
  }
}
