import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { startWorkers } from '../../worker/worker.ts';
import { TASK_QUEUES, type TaskQueueKind } from '../../workflows/contracts.ts';
import { openWorkerDeps } from '../worker-deps.ts';

/**
 * `molsearch worker [--queues orchestration,scan,export]`: a Temporal worker process for the
 * production topology. Needs TEMPORAL_ADDRESS, and DATABASE_URL (PostgreSQL, shared with the API;
 * PGlite allows one process) unless it runs no bookkeeping; scans the catalogs of CATALOG_DIR.
 * Prints `worker ready` once polling, and drains on SIGINT/SIGTERM.
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
  const workers = await startWorkers({
    address: config.temporal.address,
    namespace: config.temporal.namespace,
    prefix: config.temporal.taskQueuePrefix,
    activities: deps.activities,
    kinds,
    log,
  });
  log.info({ queues: kinds, prefix: config.temporal.taskQueuePrefix }, 'worker ready');
  process.stdout.write('worker ready\n');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker shutting down');
    workers
      .shutdown()
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
  await deps.close();
  return 0;
}
