import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { openObjectStore, type ObjectStore } from '../platform/object-store/index.ts';
import { assertPortFree } from '../platform/port-check.ts';
import { openStore, type Store } from '../store/index.ts';
import { ensureBundledCatalogs, listCatalogs, type Catalog } from '../engine/catalog/index.ts';
import { createSearchPool } from '../engine/search/index.ts';
import { getRDKit } from '../engine/chem/index.ts';
import { catalogRegistry, createSelectionPool } from '../engine/selection/index.ts';
import { createSubstructureRunner } from '../engine/substructure/index.ts';
import { createFilterPool } from '../engine/filters/index.ts';
import { buildApp } from '../api/app.ts';
import { createCatalogSearchService } from '../api/services/catalog-search.ts';
import { catalogFiltersFor } from '../api/services/catalog-filters.ts';
import { withSpaceLibraries } from '../engine/synthons/space-selection.ts';
import { spaceLibrary } from '../api/services/space-selections.ts';
import { startWorkers, type RunningWorkers } from '../worker/worker.ts';
import { createApiServices } from './api-services.ts';
import { openWorkerDeps } from './worker-deps.ts';
import { startAdminChannel } from './admin-channel.ts';
import { openShapeSearch } from './chem3d.ts';
import { startCatalog3dStages, type Catalog3dStages } from './catalog3d-stages.ts';
import { createThreeDStatus } from '../api/services/three-d-status.ts';
import { fetchPublishedCatalogs, openFleetSearch } from './published-catalogs.ts';
import { createStackMetrics } from './metrics.ts';
import { abortable } from './abortable.ts';
import { openTemporal } from './stack-temporal.ts';
import { openSynthonSpaces } from './stack-spaces.ts';
import { stackHealthChecks } from './stack-health.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

export interface Stack {
  app: FastifyInstance;
  url: string;
  store: Store;
  objects: ObjectStore;
  temporalAddress: string;
  catalogs: Catalog[];
  /** Stops in reverse order: HTTP drains first, then the worker, the pool, the store, Temporal. */
  stop(): Promise<void>;
}

export interface StackOptions {
  worker?: boolean;
  /** Build missing bundled catalogs into config.catalogDir before serving. */
  ensureCatalogs?: boolean;
  listen?: boolean;
  /** Aborting during start-up stops what was started (e.g. the Temporal child) and rejects. */
  signal?: AbortSignal;
}

/** Composes and starts the service: the one place that wires capabilities together. */
export async function startStack(config: Config, log: Logger, opts: StackOptions = {}): Promise<Stack> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const fn of cleanups.reverse())
      await fn().catch((err) => log.warn({ err }, 'error during shutdown'));
  };
  try {
    // The store first: on the embedded database its lock refuses a second service on the same
    // data directory with a clear error before anything else (Temporal, catalogs) is started.
    const store = await openStore(config, log);
    cleanups.push(() => store.close());
    // Then the API's port: taken, it would fail the listen only minutes from now.
    if (opts.listen ?? true) await assertPortFree(config.host, config.port, 'PORT');
    if (!config.databaseUrl && config.pgliteDir !== 'memory://') {
      // `molsearch keys` reaches this process's store through the admin channel while it runs.
      const admin = await startAdminChannel({ dataDir: config.dataDir, store, log });
      cleanups.push(() => admin.close());
    }
    const temporal = await openTemporal(config, log);
    if (temporal.server) cleanups.push(() => temporal.server!.stop());
    const connection = await Connection.connect({ address: temporal.address });
    cleanups.push(() => connection.close());
    const workflows = new Client({ connection, namespace: config.temporal.namespace }).workflow;
    // The small catalog's 3D first pass starts before the other catalogs are built (docs/chem3d.md).
    let stages: Catalog3dStages | undefined;
    if (opts.worker ?? true) {
      stages = await abortable(
        startCatalog3dStages({
          config,
          log,
          address: temporal.address,
          workflows,
          repoRoot: REPO_ROOT,
          ensureCatalogs: opts.ensureCatalogs ?? config.buildBundledCatalogs,
        }),
        opts.signal,
      );
      cleanups.push(() => stages!.close());
    }
    if (opts.ensureCatalogs ?? config.buildBundledCatalogs) {
      const only = config.catalogs.length ? config.catalogs : undefined;
      await abortable(
        ensureBundledCatalogs({
          catalogDir: config.catalogDir,
          repoRoot: REPO_ROOT,
          log,
          threads: config.engineThreads,
          only,
        }),
        opts.signal,
      );
    }
    const objects = await openObjectStore(config);
    const catalogs = (await listCatalogs(config.catalogDir)).filter(
      (c) => !config.catalogs.length || config.catalogs.includes(c.manifest.id),
    );
    const localIds = new Set(catalogs.map((c) => c.manifest.id));
    // With S3_BUCKET, published catalogs are fetched and loaded here, or with FLEET_SEARCH answered
    // by the scan workers that hold their shards.
    const fleet =
      config.s3 && config.fleet.search ? await openFleetSearch(config, objects, log, localIds) : undefined;
    if (config.s3 && !config.fleet.search)
      catalogs.push(...(await fetchPublishedCatalogs(config, objects, log, localIds)));
    const pool = createSearchPool({ threads: config.engineThreads, log });
    cleanups.push(() => pool.close());
    for (const c of catalogs) await pool.loadCatalog(c);
    log.info({ catalogs: catalogs.map((c) => c.manifest.id) }, 'catalogs loaded');
    const filterPool = createFilterPool({ threads: 1 });
    cleanups.push(() => filterPool.close());
    const catalogSearch = await createCatalogSearchService({ catalogs, pool, log, filterPool, fleet });
    // Synthon spaces (bundled ones built on first start, seconds) beside the catalogs.
    const { search, spaceEntries, spacePool, spaceBuilds } = await openSynthonSpaces({
      config,
      log,
      repoRoot: REPO_ROOT,
      catalogSearch,
      ensure: opts.ensureCatalogs ?? config.buildBundledCatalogs,
      signal: opts.signal,
      cleanups,
    });
    // v2: one library registry (catalogs opened on first use) shared by the API and in-process workers.
    const libraries = catalogRegistry(config.catalogDir, {
      ids: config.catalogs,
      pool,
      // With S3_BUCKET the list includes the published catalogs fetched above.
      catalogs: config.s3 ? async () => catalogs : undefined,
    });
    const substructure = createSubstructureRunner({
      threads: config.substructureThreads,
      sliceMs: config.substructureSliceMs,
      indexBytes: config.substructureIndexBytes,
    });
    cleanups.push(() => substructure.close());
    substructure.start().catch((err: unknown) => log.warn({ err }, 'substructure threads failed to start'));
    // Selections (sync v2 and run items) execute on their own thread(s), never on this event loop.
    const selectionPool = createSelectionPool({ threads: 1, log });
    cleanups.push(() => selectionPool.close());

    let workers: RunningWorkers | undefined;
    if (opts.worker ?? true) {
      // Run items may name a synthon space: its facts join the registry, its pool executes them.
      const runLibraries = withSpaceLibraries(libraries, spaceEntries.map(spaceLibrary));
      const deps = await openWorkerDeps(config, log, {
        store,
        objects,
        libraries: runLibraries,
        selectionPool,
        spaces: spacePool,
      });
      cleanups.push(() => deps.close());
      workers = await startWorkers({
        address: temporal.address,
        namespace: config.temporal.namespace,
        prefix: config.temporal.taskQueuePrefix,
        activities: deps.activities,
        log,
        shutdownGraceMs: config.shutdownGraceMs,
      });
      cleanups.push(() => workers!.shutdown());
      if (stages) await abortable(stages.serve(), opts.signal);
    }
    const threeD = createThreeDStatus({ catalogs, workflows });
    const shape = openShapeSearch({
      config,
      catalogs,
      pool,
      workflows,
      threeD,
      filters: catalogFiltersFor(await getRDKit(), filterPool),
    });
    cleanups.push(() => shape.close());

    const services = createApiServices({
      spaces: { entries: spaceEntries, pool: spacePool },
      config,
      log,
      store,
      objects,
      workflows,
      threeD,
      shape: shape.service,
      search,
      libraries,
      selectionPool,
      substructure,
      fleet,
    });
    cleanups.push(() => services.close());
    const app = await buildApp({
      log,
      metrics: createStackMetrics({
        pool,
        fleet,
        connection,
        namespace: config.temporal.namespace,
        prefix: config.temporal.taskQueuePrefix,
      }),
      accounts: store.accounts,
      search,
      legacyJobs: services.legacyJobs,
      admet: services.admet,
      analysis: services.analysis,
      installation: services.installation,
      v2: services.v2,
      threeD,
      shape: shape.service,
      health: stackHealthChecks({
        connection,
        store,
        objects,
        catalogs,
        fleet,
        search,
        spaceEntries,
        spaceBuilds,
      }),
    });
    cleanups.push(() => app.close());
    let url = '';
    if (opts.listen ?? true) {
      url = await app.listen({ host: config.host, port: config.port });
    }
    return { app, url, store, objects, temporalAddress: temporal.address, catalogs, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
