/**
 * What the API and the worker share about durable work: task-queue names, workflow names and
 * their input/result types. The API imports only this file from workflows/.
 */

/** Task queues by kind of work, so CPU-bound scans and I/O-bound exports scale apart. */
export const TASK_QUEUES = {
  /** Workflows and light bookkeeping activities (metadata store writes). */
  orchestration: 'orchestration',
  /** CPU-bound catalog scans and item executions. */
  scan: 'scan',
  /** I/O-bound exports and uploads. */
  export: 'export',
} as const;

export type TaskQueueKind = keyof typeof TASK_QUEUES;

/** The full queue name, namespaced by the deployment's prefix. */
export function taskQueue(prefix: string, kind: TaskQueueKind): string {
  return `${prefix}-${TASK_QUEUES[kind]}`;
}

/** Deterministic workflow ids, so retries and duplicate submissions are harmless. */
export const workflowIds = {
  job: (jobName: string) => jobName,
  download: (downloadId: string) => downloadId,
  run: (runId: string) => runId,
};
