import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { RunActivities } from '../activities/runs.ts';
import type {
  ExecuteItemResult,
  RunEventRecord,
  RunProgress,
  RunWorkflowInput,
  RunWorkflowResult,
} from './run-contracts.ts';
import { INVALID_INPUT_FAILURE } from './contracts.ts';

/** Bookkeeping on the orchestration queue: short, retried until the database answers. */
const book = proxyActivities<RunActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500ms', maximumInterval: '10s' },
});

/**
 * Executes a v2 run (workflow id = run id): its items with bounded concurrency on the scan queue,
 * each recorded by the item activity; an ordered event per state change whose sequence number
 * this workflow assigns (so it is the same on replay) and which an activity appends idempotently.
 * Events are flushed in order by one flusher, batching those produced while an append is running.
 * Cancellation marks unfinished items cancelled and ends with a run.cancelled event.
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<RunWorkflowResult> {
  const exec = proxyActivities<RunActivities>({
    taskQueue: input.itemTaskQueue,
    startToCloseTimeout: `${input.itemTimeoutSeconds} seconds`,
    retry: {
      initialInterval: '1s',
      maximumAttempts: input.itemAttempts,
      nonRetryableErrorTypes: [INVALID_INPUT_FAILURE],
    },
  });
  const total = input.itemIds.length;
  const progress: RunProgress = { pending: total, running: 0, succeeded: 0, failed: 0, cancelled: 0, total };
  let sequence = 0;
  const buffer: RunEventRecord[] = [];
  let flushing: Promise<void> | undefined;

  // Appends are never cancelled: a cancelled run must still record every event it numbered.
  const flush = (): Promise<void> => {
    flushing ??= CancellationScope.nonCancellable(async () => {
      try {
        while (buffer.length)
          await book.runAppendEvents({ runId: input.runId, events: buffer.splice(0, 200) });
      } finally {
        flushing = undefined;
      }
    });
    return flushing;
  };
  const emit = (
    type: RunEventRecord['type'],
    itemId: string | null,
    status: string,
    payload?: Record<string, unknown>,
  ) => {
    buffer.push({
      sequence: ++sequence,
      type,
      item_id: itemId,
      status,
      progress: { ...progress },
      payload: payload ?? null,
    });
    // drain() awaits and surfaces a failed flush; this call only starts one.
    flush().catch(() => undefined);
  };
  const drain = async () => {
    while (flushing || buffer.length) await (flushing ?? flush());
  };

  emit('run.started', null, 'running');
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const itemId = input.itemIds[next++];
      progress.pending--;
      progress.running++;
      let r: ExecuteItemResult;
      try {
        r = await exec.runExecuteItem({ runId: input.runId, itemId });
      } catch (err) {
        if (isCancellation(err)) throw err;
        const cause = (err as { cause?: { message?: string; type?: string } }).cause;
        r = {
          status: 'failed',
          error: { code: 'internal', message: cause?.message ?? String((err as Error).message) },
        };
        const failure = r.error;
        await CancellationScope.nonCancellable(() =>
          book.runRecordItemFailure({ runId: input.runId, itemId, error: failure }),
        );
      }
      progress.running--;
      progress[r.status]++;
      emit(
        r.status === 'succeeded' ? 'item.succeeded' : 'item.failed',
        itemId,
        r.status,
        r.status === 'failed' ? { error: r.error } : { returned: r.returned },
      );
    }
  };

  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, total)) }, lane));
  } catch (err) {
    if (!isCancellation(err)) throw err;
    return CancellationScope.nonCancellable(async () => {
      const counts = await book.runCancelItems({ runId: input.runId });
      Object.assign(progress, counts, { total });
      emit('run.cancelled', null, 'cancelled');
      await drain();
      return { status: 'cancelled', progress, lastSequence: sequence };
    });
  }
  const status =
    progress.failed === 0
      ? 'completed'
      : progress.succeeded === 0 && total > 0
        ? 'failed'
        : 'completed_with_errors';
  emit(`run.${status}` as RunEventRecord['type'], null, status);
  await drain();
  if (progress.succeeded + progress.failed !== total)
    throw ApplicationFailure.nonRetryable('item accounting mismatch', 'internal');
  return { status, progress, lastSequence: sequence };
}
