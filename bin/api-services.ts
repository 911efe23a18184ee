/**
 * The API's services, built once over what the stack opened: the legacy jobs, downloads, files
 * and synthon-job validation; ADMET predictions; v2 search, selections and runs. The app is given
 * these, never the database or the Temporal client they use.
 */
import type { WorkflowClient } from '@temporalio/client';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/object-store/index.ts';
import type { Store } from '../store/index.ts';
import type { LibraryRegistry, SelectionPool } from '../engine/selection/index.ts';
import type { SubstructureRunner } from '../engine/substructure/index.ts';
import type { LegacyJobServices, V2Services } from '../api/app.ts';
import type { SearchService } from '../api/services/search-service.ts';
import { createJobService } from '../api/services/jobs.ts';
import { createDownloadService } from '../api/services/jobs-downloads.ts';
import { createFileService } from '../api/services/jobs-files.ts';
import { createSynthonJobService } from '../api/services/synthon-jobs.ts';
import { createAdmetService, type AdmetService } from '../api/services/admet.ts';
import { createAnalysisService, type AnalysisService } from '../api/services/analysis.ts';
import { createAnalysisPool } from '../engine/analysis/index.ts';
import { createAnalysisJobService } from '../api/services/analysis-jobs.ts';
import { createInstallationService, type InstallationService } from '../api/services/installation.ts';
import { createV2SearchService } from '../api/services/v2-search.ts';
import type { FleetSearch } from '../api/services/fleet-search.ts';
import { fleetLibraries, refusingFleetCatalogs } from '../api/services/fleet-libraries.ts';
import type { ShapeSearchService } from '../api/services/shape-search.ts';
import type { ThreeDStatusService } from '../api/services/three-d-status.ts';
import { withV2Spaces } from '../api/services/v2-space-search.ts';
import { spaceLibrary, withSpaceSelections } from '../api/services/space-selections.ts';
import { withSpaceLibraries } from '../engine/synthons/space-selection.ts';
import type { SpaceEntry } from '../api/services/space-search.ts';
import type { SpacePool } from '../engine/synthons/space-pool.ts';
import { createSelectionsService } from '../api/services/selections.ts';
import { createRunsService } from '../api/services/runs.ts';

export interface ApiServiceDeps {
  config: Config;
  log: Logger;
  store: Store;
  objects: ObjectStore;
  workflows: WorkflowClient;
  search: SearchService;
  libraries: LibraryRegistry;
  selectionPool: SelectionPool;
  substructure: SubstructureRunner;
  threeD?: ThreeDStatusService;
  /** The 3D search path: its rerank serves /api/v2/search_cheese on catalogs, and the 3D embedding operations use it (absent: unavailable). */
  shape?: ShapeSearchService;
  /** Synthon spaces and the pool that searches them (absent: none served). */
  spaces?: { entries: SpaceEntry[]; pool: SpacePool };
  /** Catalogs the scan fleet answers (FLEET_SEARCH): v2 search fans out to them. */
  fleet?: FleetSearch;
}

export interface ApiServices {
  legacyJobs: LegacyJobServices;
  admet: AdmetService;
  analysis: AnalysisService;
  installation: InstallationService;
  v2: V2Services;
  /** Stops what the services started themselves (the ADMET predictor and analysis threads). */
  close(): Promise<void>;
}

export function createApiServices(deps: ApiServiceDeps): ApiServices {
  const { config, log, store, objects, workflows, search } = deps;
  const taskQueuePrefix = config.temporal.taskQueuePrefix;
  const jobs = createJobService({
    jobs: store.jobs,
    objects,
    workflows,
    taskQueuePrefix,
    log,
    resultCacheBytes: config.resultCacheBytes,
  });
  // ADMET for query molecules: predictor threads start on the first /predict_array request.
  const admet = createAdmetService({ objects, publicUrl: config.publicUrl, log });
  // Similarity, embeddings, clustering and maps: two analysis threads (heavy requests use at most
  // one, so cheap ones never wait behind them; engine/analysis/pool.ts), started now in the
  // background so the first legacy analysis call does not wait for RDKit to load; readiness does
  // not wait for them.
  const analysisPool = createAnalysisPool({ threads: 2 });
  let closing = false;
  analysisPool.start().then(
    () => log.debug('analysis thread started'),
    (err: unknown) => {
      if (!closing) log.warn({ err }, 'analysis thread failed to start; the first analysis call retries');
    },
  );
  return {
    legacyJobs: {
      jobs,
      synthonJobs: createSynthonJobService({
        search,
        checkQuery3d: deps.shape ? (smiles, loc) => deps.shape!.checkQuery(smiles, loc) : undefined,
        jobs: store.jobs,
        workflows,
        taskQueuePrefix,
        largeProducts: deps.config.largeSpaceProducts,
        log,
      }),
      downloads: createDownloadService({
        downloads: store.downloads,
        objects,
        workflows,
        taskQueuePrefix,
        publicUrl: config.publicUrl,
        log,
        jobs,
      }),
      files: createFileService({ uploads: store.uploads, objects, search }),
    },
    admet,
    analysis: createAnalysisService({
      pool: analysisPool,
      search,
      objects,
      jobs,
      shape: deps.shape,
      analysisJobs: createAnalysisJobService({
        jobs: store.jobs,
        jobService: jobs,
        objects,
        workflows,
        taskQueuePrefix,
        log,
      }),
    }),
    installation: createInstallationService({
      dataDir: config.dataDir,
      installationId: process.env.LICENSE_KEY_ID || undefined,
    }),
    v2: {
      search: (() => {
        const base = createV2SearchService({
          libraries: deps.libraries,
          substructure: deps.substructure,
          threeD: deps.threeD,
          rerank: deps.shape?.rerank,
          fleet: deps.fleet && fleetLibraries(deps.fleet),
          spaces: deps.spaces && {
            ids: () => deps.spaces!.entries.map((e) => e.manifest.id),
            notReady: (id) => search.notReady?.(id),
            pending: () => search.pending?.() ?? [],
          },
        });
        return deps.spaces
          ? withV2Spaces(base, deps.spaces.entries, deps.spaces.pool, deps.shape, {
              space3dBudgetMs: config.chem3d.space3dBudgetMs,
              pending: () => search.pending?.() ?? [],
            })
          : base;
      })(),
      selections: (() => {
        const base = createSelectionsService({
          libraries: refusingFleetCatalogs(deps.libraries, deps.fleet),
          selectionPool: deps.selectionPool,
          shape: deps.shape?.objectives,
        });
        return deps.spaces
          ? withSpaceSelections(base, deps.spaces.entries, deps.spaces.pool, deps.selectionPool)
          : base;
      })(),
      runs: createRunsService({
        runs: store.runs,
        // Run admission judges documents naming a synthon space against its facts.
        libraries: refusingFleetCatalogs(
          deps.spaces
            ? withSpaceLibraries(deps.libraries, deps.spaces.entries.map(spaceLibrary))
            : deps.libraries,
          deps.fleet,
        ),
        objects,
        workflows,
        taskQueuePrefix,
        publicUrl: config.publicUrl,
      }),
    },
    close: async () => {
      closing = true;
      await admet.close();
      await analysisPool.close();
    },
  };
}
