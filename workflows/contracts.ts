/**
 * What the API and the worker share about durable work: task-queue names, workflow names and
 * their input/result types. The API imports only this file from workflows/.
 */
import type { EmbeddedWire } from './chem3d-contracts.ts';

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

/**
 * Type of the application failure an activity throws for bad input (an unparsable query, an
 * unknown database, a missing run): every workflow lists it in `nonRetryableErrorTypes`, so the
 * same input is never retried. Anything else an activity throws is transient and retried.
 */
export const INVALID_INPUT_FAILURE = 'invalid_input';

/** Type of the (non-retryable) failure of a scan whose shard fails its checksum in the object store. */
export const CORRUPT_SHARD_FAILURE = 'corrupt_shard';

/**
 * Type of the (non-retryable) failure of a synthon slice stopped by its worker shutting down
 * (details: [the attempt it was]): nothing was wrong with the slice, so the workflow dispatches
 * it again without counting it as a failure (workflows/synthon-job-workflow.ts).
 */
export const WORKER_SHUTDOWN_FAILURE = 'worker_shutdown';

/** The full queue name, namespaced by the deployment's prefix. */
export function taskQueue(prefix: string, kind: TaskQueueKind): string {
  return `${prefix}-${TASK_QUEUES[kind]}`;
}

/**
 * The scan queue only one fleet worker polls (docs/scaling.md): scans of the shards it holds are
 * placed there, and fall back to the shared scan queue when it does not pick them up in time.
 */
export function workerScanQueue(prefix: string, workerId: string): string {
  return `${taskQueue(prefix, 'scan')}-${workerId}`;
}

/**
 * The scan queue of the synthon jobs over large spaces (the 10^9 default): every worker that polls
 * the scan queue polls it too, with fewer slots (worker.ts). A large job's slices wait for its
 * engine lane while holding their activity slots; on the shared queue four of them held all four,
 * and a job on a small space waited minutes for a slot, its merge too (user trial).
 */
export function largeSpaceScanQueue(prefix: string): string {
  return `${taskQueue(prefix, 'scan')}-large-spaces`;
}

/** Deterministic workflow ids, so retries and duplicate submissions are harmless. */
export const workflowIds = {
  job: (jobName: string) => jobName,
  download: (downloadId: string) => downloadId,
  run: (runId: string) => runId,
};

// Legacy jobs and downloads (issue 3).

export const JOB_WORKFLOWS = {
  molsearch: 'molsearchJobWorkflow',
  synthon: 'synthonJobWorkflow',
  download: 'prepareDownloadWorkflow',
} as const;

/** Full task-queue names the workflow routes its activities to. */
export interface JobQueues {
  scan: string;
  export: string;
}

export interface MolsearchJobInput {
  jobName: string;
  smiles: string;
  dbNames: string[];
  /** Neighbours wanted (1..100,000). */
  k: number;
  queues: JobQueues;
  /** Shard scans running at once (default 4). */
  concurrency?: number;
  /** espsim jobs: the query is embedded on `chem3dQueue`, shards are scored by 3D alignment. */
  threeD?: {
    metric: 'shape' | 'esp';
    /** First-stage shortlist per shard; 0 = every row scored exactly (very_accurate). */
    shortlist: number;
    chem3dQueue: string;
    /**
     * The conformers the submission's check embedded (same recipe; a few KB, once in history), so
     * the job does not embed the query again; absent, it embeds it itself.
     */
    query?: EmbeddedWire;
  };
}

/** A synthon-space job (/submit_synthongpt_job): one space, a search mode, `k` hits wanted. */
export interface SynthonJobInput {
  jobName: string;
  space: string;
  mode: 'similarity' | 'substructure' | 'superstructure';
  query: string;
  /** Hits wanted (search_quality or sample_size). */
  k: number;
  matchMode: 'fuzzy' | 'exact';
  prefilter?: { smarts: string; mode: 'include' | 'exclude' };
  /** Compute the descriptors of the hits (include_properties). */
  descriptors?: boolean;
  queues: JobQueues;
  /** Slices scanned at once (default 4). */
  concurrency?: number;
  /** Per-slice time budget (default: 2 minutes for similarity, 10 for structure scans). */
  sliceTimeoutMs?: number;
  /** Structure modes: verified hits a slice ranks at most (default job-search.ts structureHitCap(k); tests set fewer). */
  sliceMaxHits?: number;
  /** Attempts of a slice that really fail (not stopped by a worker shutdown) before the job fails (default 8). */
  sliceAttempts?: number;
  /**
   * synthon_scorer shape or esp: the best `shortlist` products by Morgan are embedded by the
   * chem3d worker (`chem3dQueue` for the products, `queryQueue` for the query) and ranked by the
   * exact 3D stage's `metric`. `query`: the conformers the submission's check embedded (a few KB,
   * once in history), so the job does not embed the query again; absent, it embeds it itself.
   */
  threeD?: {
    metric: 'shape' | 'esp';
    shortlist: number;
    chem3dQueue: string;
    queryQueue: string;
    query?: EmbeddedWire;
  };
}

export interface MolsearchJobResult {
  status: 'SUCCESS';
  resultKey: string;
  rows: number;
}

/** Download filters (the same as paging: engine/export ResultFilter) and columns. */
export interface DownloadOptions {
  simTh: number;
  dMin: number;
  dMax: number;
  propRanges: Record<string, { min: number; max: number }>;
  includeProperties: boolean;
  includeMetadata: boolean;
  /** Synthon columns of synthon-space results (default true). */
  includeSynthons?: boolean;
}

export interface PrepareDownloadInput {
  downloadId: string;
  jobName: string;
  resultKey: string;
  formats: ('csv' | 'json' | 'xlsx' | 'sdf')[];
  /** Object key prefix of the files, e.g. users/<account>/downloads/<id>/; the file is <prefix><job>.<format>. */
  keyPrefix: string;
  options: DownloadOptions;
  queues: JobQueues;
}

export interface PrepareDownloadResult {
  keys: Record<string, string>;
}

// v2 runs: workflow name, input, events (kept in their own file, re-exported for the API).
export * from './run-contracts.ts';

// The Python 3D worker's queues and payloads, query embedding and catalog 3D stages (issue 9).
export * from './chem3d-contracts.ts';

// Analysis jobs (issue 11): the heavy analysis operations as legacy jobs.
export * from './analysis-job-contracts.ts';
