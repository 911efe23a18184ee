/**
 * Temporal schedules of a deployment, created by the workers that run its orchestration queue (so
 * every topology has them, and none depends on an API process being up). Creating one that
 * exists already is a no-op: a restart or a second worker process changes nothing.
 */
import { Client, Connection, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { PURGE_RUNS_WORKFLOW, RUN_PURGE_SCHEDULE, taskQueue } from '../workflows/contracts.ts';

/** Ensures the hourly retention purge of expired runs (workflows/purge-runs-workflow.ts); returns its id. */
export async function ensureRunPurgeSchedule(opts: {
  address: string;
  namespace: string;
  prefix: string;
}): Promise<string> {
  const scheduleId = RUN_PURGE_SCHEDULE.id(opts.prefix);
  const connection = await Connection.connect({ address: opts.address });
  try {
    const client = new Client({ connection, namespace: opts.namespace });
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: RUN_PURGE_SCHEDULE.every }] },
      action: {
        type: 'startWorkflow',
        workflowType: PURGE_RUNS_WORKFLOW,
        workflowId: scheduleId,
        taskQueue: taskQueue(opts.prefix, 'orchestration'),
        args: [],
      },
      // A purge still running when the next is due makes that one unnecessary.
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  } finally {
    await connection.close();
  }
  return scheduleId;
}
