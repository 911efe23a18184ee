import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { Store } from '../store/index.ts';
import type { LibraryRegistry, SelectionPool } from '../engine/selection/index.ts';
import { createJobActivities } from './jobs.ts';
import { createShardCache, type ShardCache } from './jobs-shards.ts';
import { createAnalysisJobActivities } from './analysis-jobs.ts';
import type { FleetMember } from '../engine/fleet/members.ts';
import { createExportActivities } from './exports.ts';
import { createRunActivities } from './runs.ts';
import { createCatalog3dActivities } from './catalog3d.ts';

/** What activities close over: small interfaces, opened once per worker process (bin/worker-deps.ts). */
export interface ActivityDeps {
  log: Logger;
  /** Repositories of the metadata store the activities write (jobs, downloads, runs). */
  store: Pick<Store, 'jobs' | 'downloads' | 'runs'>;
  /** Object store for job parts, results, exports and run results. */
  objects: ObjectStore;
  /** Directory of the catalogs this worker scans (config.catalogDir). */
  catalogDir: string;
  /** Shard source of job scans (default: the catalog directory). */
  shards?: ShardCache;
  /** Live fleet members, for job placement (absent: every scan goes to the shared queue). */
  fleet?: () => Promise<FleetMember[]>;
  /** Libraries v2 run items execute over. */
  libraries: LibraryRegistry;
  /** Threads for run items' selections; absent, they run on the activity's thread (tests). */
  selectionPool?: SelectionPool;
}

/** The worker's activities, as plain async functions. Workflows type them with ReturnType<>. */
export function createActivities(deps: ActivityDeps) {
  // One shard cache for molsearch and analysis jobs: a worker reads each shard once.
  const shards = deps.shards ?? createShardCache(deps.catalogDir);
  return {
    ...createJobActivities({
      log: deps.log,
      jobs: deps.store.jobs,
      objects: deps.objects,
      catalogDir: deps.catalogDir,
      shards,
      fleet: deps.fleet,
    }),
    ...createAnalysisJobActivities({ log: deps.log, objects: deps.objects, shards }),
    ...createExportActivities({ log: deps.log, downloads: deps.store.downloads, objects: deps.objects }),
    ...createRunActivities({
      log: deps.log,
      runs: deps.store.runs,
      objects: deps.objects,
      libraries: deps.libraries,
      selectionPool: deps.selectionPool,
    }),
    ...createCatalog3dActivities({ log: deps.log }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
