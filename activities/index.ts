import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { Store } from '../store/index.ts';
import type { LibraryRegistry, SelectionPool } from '../engine/selection/index.ts';
import type { ShapePool } from '../engine/shape/index.ts';
import { createJobActivities } from './jobs.ts';
import { createShardCache, type ShardCache } from './jobs-shards.ts';
import { createJob3dActivities } from './jobs-3d.ts';
import { createSynthonJobActivities } from './synthon-jobs.ts';
import { createSynthon3dActivities } from './synthon-jobs-3d.ts';
import { createAnalysisJobActivities } from './analysis-jobs.ts';
import type { FleetMember } from '../engine/fleet/members.ts';
import { createExportActivities } from './exports.ts';
import { createRunActivities } from './runs.ts';
import { createCatalog3dActivities } from './catalog3d.ts';

import type { SpacePool } from '../engine/synthons/space-pool.ts';
/** What activities close over: small interfaces, opened once per worker process (bin/worker-deps.ts). */
export interface ActivityDeps {
  log: Logger;
  /** Repositories of the metadata store the activities write (jobs, downloads, runs). */
  store: Pick<Store, 'jobs' | 'downloads' | 'runs'>;
  /** Object store for job parts, results, exports and run results. */
  objects: ObjectStore;
  /** Directory of the catalogs this worker scans (config.catalogDir). */
  catalogDir: string;
  /** Directory of the built synthon spaces synthon jobs scan (DATA_DIR/spaces). */
  spaceDir?: string;
  /** Spaces with at least this many products take the synthon jobs' large lane (config). */
  largeSpaceProducts?: number;
  /** Shard source of job scans (default: the catalog directory). */
  shards?: ShardCache;
  /** Live fleet members, for job placement (absent: every scan goes to the shared queue). */
  fleet?: () => Promise<FleetMember[]>;
  /** Libraries v2 run items execute over. */
  libraries: LibraryRegistry;
  /** Threads for run items' selections; absent, they run on the activity's thread (tests). */
  selectionPool?: SelectionPool;
  /** Synthon spaces run items may name (absent: none). */
  spaces?: SpacePool;
  /**
   * The worker's one shape pool: 3D molsearch shard scans and 3D synthon scoring share its threads
   * (bin/worker-deps.ts makes it), so a worker never runs two pools competing for the same cores.
   */
  shapePool: ShapePool;
}

/** The worker's activities, as plain async functions. Workflows type them with ReturnType<>. */
export function createActivities(deps: ActivityDeps) {
  // One shard cache for Morgan, 3D and analysis jobs, so a worker holds each shard once.
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
    ...createJob3dActivities({
      log: deps.log,
      objects: deps.objects,
      catalogDir: deps.catalogDir,
      shards,
      shapePool: deps.shapePool,
    }),
    ...createSynthonJobActivities({
      log: deps.log,
      objects: deps.objects,
      jobs: deps.store.jobs,
      spaceDir: deps.spaceDir,
      largeProducts: deps.largeSpaceProducts,
    }),
    ...createSynthon3dActivities({ log: deps.log, objects: deps.objects, shapePool: deps.shapePool }),
    ...createAnalysisJobActivities({ log: deps.log, objects: deps.objects, shards }),
    ...createExportActivities({ log: deps.log, downloads: deps.store.downloads, objects: deps.objects }),
    ...createRunActivities({
      log: deps.log,
      runs: deps.store.runs,
      objects: deps.objects,
      libraries: deps.libraries,
      selectionPool: deps.selectionPool,
      spaces: deps.spaces,
    }),
    ...createCatalog3dActivities({ log: deps.log }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
