import type { FastifyInstance } from 'fastify';
import type { WorkflowClient } from '@temporalio/client';
import type { Logger } from '../../../platform/logger.ts';
import type { ObjectStore } from '../../../platform/object-store/index.ts';
import type { Db } from '../../../store/db.ts';
import type { SearchService } from '../../services/search-service.ts';
import { createJobService } from '../../services/jobs.ts';
import { createDownloadService } from '../../services/jobs-downloads.ts';
import { createFileService } from '../../services/jobs-files.ts';
import { registerJobRoutes } from './jobs.ts';
import { registerSynthonJobRoute } from './jobs-synthon.ts';
import { registerDownloadRoutes } from './downloads.ts';
import { registerFileRoutes } from './jobs-files.ts';

export interface LegacyJobsDeps {
  db: Db;
  objects: ObjectStore;
  workflows: WorkflowClient;
  taskQueuePrefix: string;
  publicUrl: string;
  search: SearchService;
  log: Logger;
  scanConcurrency?: number;
}

/**
 * The legacy jobs capability as an AppDeps plugin: jobs, pages, synthon-job validation, downloads,
 * uploads and /search_file. Services are built once per app.
 */
export function legacyJobsPlugin(deps: LegacyJobsDeps): (app: FastifyInstance) => void {
  const jobs = createJobService(deps);
  const downloads = createDownloadService({ ...deps, jobs });
  const files = createFileService(deps);
  return (app) => {
    registerJobRoutes(app, { jobs, search: deps.search });
    registerSynthonJobRoute(app, deps.search);
    registerDownloadRoutes(app, downloads);
    registerFileRoutes(app, { files, search: deps.search });
  };
}
