/**
 * What every legacy job workflow (molsearch, 3D, synthon, analysis) does around its own work:
 * record its state through the jobRecord activity, run its parts with bounded concurrency, and
 * end as SUCCESS, REVOKED (cancelled) or FAILURE (with the reason a user reads in /job_info).
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { JobActivities } from '../activities/jobs.ts';
import type { MolsearchJobResult } from './contracts.ts';

/** Records a job's status, progress or result (the jobRecord activity bound to one job). */
export type JobRecord = (u: Omit<Parameters<JobActivities['jobRecord']>[0], 'jobName'>) => Promise<void>;

/** The reason a job failed, for the job info: the innermost application failure's message. */
export function failureReason(err: unknown): string {
  let e: unknown = err;
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  if (e instanceof ApplicationFailure || e instanceof Error) return e.message;
  return String(e);
}

/**
 * Runs `part(0..total-1)` with at most `concurrency` at once, in index order of start (each lane
 * takes the next index when its part ends), so a replay schedules the same activities.
 */
export async function forEachBounded(
  total: number,
  concurrency: number,
  part: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < total) await part(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, lane));
}

/** Records SUCCESS with the merged result and answers it as the workflow's result. */
export async function succeed(
  record: JobRecord,
  merged: { key: string; rows: number },
): Promise<MolsearchJobResult> {
  await record({ status: 'SUCCESS', resultKey: merged.key, rows: merged.rows });
  return { status: 'SUCCESS', resultKey: merged.key, rows: merged.rows };
}

/** Runs a job's body; a cancellation records REVOKED, any other failure FAILURE with its reason. */
export async function recordingEnd<T>(record: JobRecord, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        record({ status: 'REVOKED', error: 'revoked by the user' }),
      );
      throw err;
    }
    await record({ status: 'FAILURE', error: failureReason(err) });
    throw err;
  }
}
