import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { startWorkers } from '../../worker/worker.ts';
import { TASK_QUEUES, workerScanQueue, type TaskQueueKind } from '../../workflows/contracts.ts';
import { startAnnouncer } from '../../worker/fleet-announcer.ts';
import { startScanServer } from '../../worker/scan-server.ts';
import { openWorkerDeps } from '../worker-deps.ts';

/**
 * `molsearch worker [--queues orchestration,scan,export]`: a Temporal worker process for the
 * production topology. Needs TEMPORAL_ADDRESS, and DATABASE_URL (PostgreSQL, shared with the API;
 * PGlite allows one process) unless it runs no bookkeeping; scans the catalogs of CATALOG_DIR.
 * With S3_BUCKET, a scan worker also joins the fleet (WORKER_ID, its own scan queue, its share of
 * the published catalogs' shards: docs/scaling.md). Prints `worker ready` once polling, and
 * drains on SIGINT/SIGTERM.
 */
export async function runWorkerCommand(argv: string[]): Promise<number> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel, name: 'worker' });
  if (!config.temporal.address)
    throw new Error(
      'molsearch worker needs TEMPORAL_ADDRESS (the embedded server is started by `molsearch start`)',
    );
  const qi = argv.indexOf('--queues');
  const kinds = (qi >= 0 ? (argv[qi + 1] ?? '').split(',') : Object.keys(TASK_QUEUES))
    .map((k) => k.trim())
    .filter(Boolean) as TaskQueueKind[];
  for (const k of kinds)
    if (!(k in TASK_QUEUES))
      throw new Error(`unknown queue ${k}; queues: ${Object.keys(TASK_QUEUES).join(', ')}`);
  if (!config.databaseUrl)
    log.warn(
      'DATABASE_URL is not set: this worker opens the PGlite directory, which no other process may hold',
    );
  const deps = await openWorkerDeps(config, log);
  const prefix = config.temporal.taskQueuePrefix;
  // With S3_BUCKET a scan worker joins the fleet: its own queue, its share of the shards.
  const fleet = deps.published && kinds.includes('scan');
  const ownScanQueue = fleet ? workerScanQueue(prefix, config.fleet.workerId) : undefined;
  const workers = await startWorkers({
    address: config.temporal.address,
    namespace: config.temporal.namespace,
    prefix,
    activities: deps.activities,
    kinds,
    log,
    ownScanQueue,
    shutdownGraceMs: config.shutdownGraceMs,
  });
  // Synchronous searches reach the shards this worker holds through its internal scan endpoint.
  const scanServer =
    deps.published && ownScanQueue
      ? await startScanServer({
          host: config.fleet.scanHost,
          port: config.fleet.scanPort,
          published: deps.published,
          token: config.fleet.token,
          log,
        })
      : undefined;
  const announcer =
    deps.published && ownScanQueue
      ? startAnnouncer({
          scanUrl: scanServer?.url,
          objects: deps.objects,
          prefix,
          workerId: config.fleet.workerId,
          queue: ownScanQueue,
          capacityBytes: config.shardCache.memoryBytes,
          heartbeatMs: config.fleet.heartbeatMs,
          staleMs: config.fleet.staleMs,
          published: deps.published,
          catalogs: config.catalogs,
          log,
        })
      : undefined;
  log.info({ queues: kinds, prefix, workerId: fleet ? config.fleet.workerId : undefined }, 'worker ready');
  process.stdout.write('worker ready\n');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker shutting down');
    // Leave the placement first, so no new scan is sent here while the worker drains.
    Promise.resolve(announcer?.stop())
      .then(() => scanServer?.close())
      .then(() => workers.shutdown())
      .then(() => deps.close())
      .then(
        () => process.exit(0),
        (err) => {
          log.error({ err }, 'worker shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  await workers.done;
  await announcer?.stop();
  await scanServer?.close();
  await deps.close();
  return 0;
}
