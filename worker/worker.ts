import { fileURLToPath } from 'node:url';
import {
  DefaultLogger,
  GracefulShutdownPeriodExpiredError,
  NativeConnection,
  Runtime,
  Worker,
  type LogLevel,
} from '@temporalio/worker';
import type { Logger } from '../platform/logger.ts';
import { largeSpaceScanQueue, taskQueue, type TaskQueueKind } from '../workflows/contracts.ts';

/**
 * Slots of the large-space scan queue: one slice on its engine lane and one waiting (or a merge),
 * so large jobs never hold the shared scan queue's slots.
 */
const LARGE_SPACE_SCAN_SLOTS = 2;
import { ensureRunPurgeSchedule } from './schedules.ts';

export interface RunningWorkers {
  /** Resolves when every worker has stopped. */
  done: Promise<void>;
  /** Stops polling, lets running activities finish (the grace time), cancels the rest, then resolves. */
  shutdown(): Promise<void>;
}

let runtimeInstalled = false;

/** Routes the Temporal core's logs into pino, once per process. */
function installRuntime(log: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (log.level === 'debug' || log.level === 'trace' ? 'DEBUG' : 'WARN') as LogLevel;
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      // Activity-only queues poll no workflows by design; that notice is not a warning here.
      if (entry.message.startsWith('No workflows registered')) return;
      const fn = entry.level === 'ERROR' ? 'error' : entry.level === 'WARN' ? 'warn' : 'debug';
      log[fn]({ ...entry.meta, temporal: true }, entry.message);
    }),
  });
}

/**
 * Starts one Temporal worker per task-queue kind on a shared connection. Workflows come from the
 * bundle of workflows/index.ts; activities are the plain functions of createActivities(). With the
 * orchestration queue, also ensures the deployment's schedules (the retention purge of runs).
 */
export async function startWorkers(opts: {
  address: string;
  namespace: string;
  prefix: string;
  activities: Record<string, (...args: never[]) => Promise<unknown>>;
  kinds?: TaskQueueKind[];
  log: Logger;
  maxConcurrentScans?: number;
  /** A fleet worker's own scan queue (workerScanQueue), polled besides the shared ones. */
  ownScanQueue?: string;
  /** Ensure the deployment's schedules with the orchestration queue (default true). */
  schedules?: boolean;
  /** On shutdown, how long running activities may finish before they are cancelled (default 10 s). */
  shutdownGraceMs?: number;
}): Promise<RunningWorkers> {
  installRuntime(opts.log);
  const kinds = opts.kinds ?? (['orchestration', 'scan', 'export'] as TaskQueueKind[]);
  if (kinds.includes('orchestration') && (opts.schedules ?? true))
    await ensureRunPurgeSchedule({ address: opts.address, namespace: opts.namespace, prefix: opts.prefix });
  const connection = await NativeConnection.connect({ address: opts.address });
  const grace = opts.shutdownGraceMs ?? 10_000;
  const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
  const queues: { kind: TaskQueueKind; queue: string }[] = kinds.map((kind) => ({
    kind,
    queue: taskQueue(opts.prefix, kind),
  }));
  if (opts.ownScanQueue) queues.push({ kind: 'scan', queue: opts.ownScanQueue });
  const large = kinds.includes('scan') ? largeSpaceScanQueue(opts.prefix) : undefined;
  if (large) queues.push({ kind: 'scan', queue: large });
  const workers = await Promise.all(
    queues.map(({ kind, queue }) =>
      Worker.create({
        connection,
        namespace: opts.namespace,
        taskQueue: queue,
        workflowsPath: kind === 'orchestration' ? workflowsPath : undefined,
        activities: opts.activities,
        maxConcurrentActivityTaskExecutions:
          queue === large ? LARGE_SPACE_SCAN_SLOTS : kind === 'scan' ? (opts.maxConcurrentScans ?? 4) : 20,
        // Running activities get the grace time to finish, then are cancelled (engine work stops
        // on cancellation); whatever still ignores it is abandoned 60 s later: a stop never hangs.
        shutdownGraceTime: grace,
        shutdownForceTime: grace + 60_000,
      }),
    ),
  );
  const done = Promise.allSettled(workers.map((w) => w.run())).then(async (ends) => {
    await connection.close().catch(() => undefined);
    const failed = ends.find((e): e is PromiseRejectedResult => e.status === 'rejected');
    if (failed?.reason instanceof GracefulShutdownPeriodExpiredError)
      opts.log.warn({ err: failed.reason }, 'worker stopped with activities still running');
    else if (failed) throw failed.reason;
  });
  return {
    done,
    async shutdown() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await done;
    },
  };
}
