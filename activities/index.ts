import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { Store } from '../store/index.ts';
import { createJobs } from '../store/jobs.ts';
import { createDownloads } from '../store/downloads.ts';
import { createJobActivities } from './jobs.ts';
import { createExportActivities } from './exports.ts';
import { createRunActivities } from './runs.ts';
import { createRunsRepository } from '../store/runs.ts';
import { catalogRegistry, type LibraryRegistry, type SelectionPool } from '../engine/selection/index.ts';

/** What activities close over: small interfaces, created once per worker process. */
export interface ActivityDeps {
  log: Logger;
  /** Metadata store (jobs, downloads, runs). Activities that need it fail plainly without it. */
  store?: Store;
  /** Object store for job parts, results and exports. */
  objects?: ObjectStore;
  /** Directory of the catalogs this worker scans (config.catalogDir). */
  catalogDir?: string;
  /** Libraries v2 run items execute over (default: the catalogs of catalogDir, opened lazily). */
  libraries?: LibraryRegistry;
  /** Threads for run items' selections (absent: run on the activity's thread). */
  selectionPool?: SelectionPool;
}

/** The worker's activities, as plain async functions. Workflows type them with ReturnType<>. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createJobActivities({
      log: deps.log,
      jobs: deps.store ? createJobs(deps.store.db) : undefined,
      objects: deps.objects,
      catalogDir: deps.catalogDir,
    }),
    ...createExportActivities({
      log: deps.log,
      downloads: deps.store ? createDownloads(deps.store.db) : undefined,
      objects: deps.objects,
    }),
    ...createRunActivities({
      log: deps.log,
      runs: deps.store ? createRunsRepository(deps.store.db) : undefined,
      objects: deps.objects,
      libraries: deps.libraries ?? (deps.catalogDir ? catalogRegistry(deps.catalogDir) : undefined),
      selectionPool: deps.selectionPool,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
