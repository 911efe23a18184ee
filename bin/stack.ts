import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { resolveTemporalCli } from '../platform/temporal/cli.ts';
import { startDevServer, waitForTemporal, type DevServer } from '../platform/temporal/dev-server.ts';
import { openObjectStore, type ObjectStore } from '../platform/object-store/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { ensureBundledCatalogs, listCatalogs, type Catalog } from '../engine/catalog/index.ts';
import { createSearchPool } from '../engine/search/index.ts';
import { catalogRegistry, createSelectionPool } from '../engine/selection/index.ts';
import { createSubstructureRunner } from '../engine/substructure/index.ts';
import { createFilterPool } from '../engine/filters/index.ts';
import { buildApp } from '../api/app.ts';
import { createCatalogSearchService } from '../api/services/catalog-search.ts';
import { startWorkers, type RunningWorkers } from '../worker/worker.ts';
import { createApiServices } from './api-services.ts';
import { openWorkerDeps } from './worker-deps.ts';
import { fetchPublishedCatalogs, openFleetSearch } from './published-catalogs.ts';
import { createStackMetrics } from './metrics.ts';

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

/** Rejects as soon as `signal` aborts, so a long start-up step (a catalog build) can be left. */
function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('start-up aborted'));
    const onAbort = () => reject(new Error('start-up aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Opens the Temporal server (embedded or configured) and returns its address. */
async function openTemporal(config: Config, log: Logger): Promise<{ address: string; server?: DevServer }> {
  if (config.temporal.address) return { address: config.temporal.address };
  const address = `127.0.0.1:${config.temporal.embeddedPort}`;
  try {
    // A dev server left behind by a killed start (same port, same file) is reused, not fought over.
    await waitForTemporal(address, 500);
    log.warn({ address }, 'reusing the Temporal dev server already listening on the embedded port');
    return { address };
  } catch {
    /* nothing there: start one */
  }
  const cli = resolveTemporalCli({
    explicit: config.temporal.cli,
    toolsDir: config.toolsDir,
    log: (m) => log.info(m),
  });
  log.info(
    { cli, port: config.temporal.embeddedPort, db: config.temporal.dbFile },
    'starting embedded Temporal dev server',
  );
  const server = await startDevServer({
    cli,
    port: config.temporal.embeddedPort,
    uiPort: config.temporal.embeddedUiPort,
    dbFile: config.temporal.dbFile,
    namespace: config.temporal.namespace,
    logFile: resolve(config.dataDir, 'temporal.log'),
  });
  return { address: server.address, server };
}

/** Composes and starts the service: the one place that wires capabilities together. */
export async function startStack(config: Config, log: Logger, opts: StackOptions = {}): Promise<Stack> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const fn of cleanups.reverse())
      await fn().catch((err) => log.warn({ err }, 'error during shutdown'));
  };
  try {
    const temporal = await openTemporal(config, log);
    if (temporal.server) cleanups.push(() => temporal.server!.stop());
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
    const store = await openStore(config, log);
    cleanups.push(() => store.close());
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
    const search = await createCatalogSearchService({ catalogs, pool, log, filterPool, fleet });
    const connection = await Connection.connect({ address: temporal.address });
    cleanups.push(() => connection.close());
    // v2: one library registry (catalogs opened on first use) shared by the API and in-process workers.
    const libraries = catalogRegistry(config.catalogDir, {
      ids: config.catalogs,
      pool,
      // With S3_BUCKET the list includes the published catalogs fetched above.
      catalogs: config.s3 ? async () => catalogs : undefined,
    });
    const substructure = createSubstructureRunner();
    cleanups.push(() => substructure.close());
    // Selections (sync v2 and run items) execute on their own thread(s), never on this event loop.
    const selectionPool = createSelectionPool({ threads: 1, log });
    cleanups.push(() => selectionPool.close());

    let workers: RunningWorkers | undefined;
    if (opts.worker ?? true) {
      const deps = await openWorkerDeps(config, log, { store, objects, libraries, selectionPool });
      cleanups.push(() => deps.close());
      workers = await startWorkers({
        address: temporal.address,
        namespace: config.temporal.namespace,
        prefix: config.temporal.taskQueuePrefix,
        activities: deps.activities,
        log,
      });
      cleanups.push(() => workers!.shutdown());
    }

    const services = createApiServices({
      config,
      log,
      store,
      objects,
      workflows: new Client({ connection, namespace: config.temporal.namespace }).workflow,
      search,
      libraries,
      selectionPool,
      substructure,
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
      v2: services.v2,
      health: [
        { name: 'temporal', check: async () => void (await connection.workflowService.getSystemInfo({})) },
        { name: 'database', check: () => store.ping() },
        { name: 'object_store', check: async () => void (await objects.list('health-probe/')) },
        {
          name: 'catalogs',
          check: async () => {
            if ((!catalogs.length && !fleet) || !search.ready()) throw new Error('no catalog loaded');
          },
        },
        ...(fleet
          ? [
              {
                name: 'fleet',
                // Partly uncovered still answers (with a coverage warning); no live worker does not.
                check: async () => {
                  const p = await fleet.placement();
                  if (!p.members.length) throw new Error('no live scan worker');
                  return {
                    members: p.members.map((m) => m.workerId),
                    shards_held: p.members.reduce((n, m) => n + m.held.length, 0),
                    uncovered: p.uncovered,
                  };
                },
              },
            ]
          : []),
      ],
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
