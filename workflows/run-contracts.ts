/**
 * What the API and the worker share about v2 runs: the workflow name, its input, the event and
 * progress shapes. Plain types and constants only (bundled into the workflow sandbox).
 */

export const RUN_WORKFLOW = 'runWorkflow';

/** Deletes runs past their retention; started by the schedule below on the orchestration queue. */
export const PURGE_RUNS_WORKFLOW = 'purgeExpiredRunsWorkflow';

/** The retention purge schedule of a deployment (one per task-queue prefix), created by the workers. */
export const RUN_PURGE_SCHEDULE = {
  id: (prefix: string) => `${prefix}-purge-expired-runs`,
  every: '1 hour',
} as const;

export interface RunProgress {
  pending: number;
  running: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  total: number;
}

/** One run event; the workflow assigns `sequence` (1, 2, ...), deterministic on replay. */
export interface RunEventRecord {
  sequence: number;
  type:
    | 'run.started'
    | 'item.succeeded'
    | 'item.failed'
    | 'run.completed'
    | 'run.completed_with_errors'
    | 'run.failed'
    | 'run.cancelled';
  item_id: string | null;
  status: string;
  progress: RunProgress;
  payload?: Record<string, unknown> | null;
}

export interface RunWorkflowInput {
  runId: string;
  /** Item ids in input order (ids are short: at most 1000 of at most 128 characters). */
  itemIds: string[];
  /** Items executed at once. */
  concurrency: number;
  /** Task queue of the item executions (the CPU-bound scan queue). */
  itemTaskQueue: string;
  /** Start-to-close timeout of one item execution, in seconds; a lost worker's item is retried after it. */
  itemTimeoutSeconds: number;
  /** Attempts per item before it is recorded as failed. */
  itemAttempts: number;
}

export interface RunWorkflowResult {
  status: string;
  progress: RunProgress;
  lastSequence: number;
}

export interface ExecuteItemInput {
  runId: string;
  itemId: string;
}
export type ExecuteItemResult =
  { status: 'succeeded'; returned: number } | { status: 'failed'; error: { code: string; message: string } };

export interface PurgeRunsResult {
  /** Runs deleted. */
  runs: number;
}
