/**
 * Contracts of analysis jobs (issue 11): the heavy analysis operations — similarity matrices above
 * the synchronous limit, database similarity (a large list, or a whole database, against another
 * database), Morgan embeddings of large files, clustering and 2D maps of large files — run as `analysisJobWorkflow`, a legacy job (the
 * same job row, /job_status, /job_info, /user_jobs, /revoke_job) whose request and result live in
 * the object store under `analysis-jobs/<job>/`. Only keys and counts pass through history.
 */

export const ANALYSIS_JOB_WORKFLOW = 'analysisJobWorkflow';

/** The operations a job runs; the job row's kind is `analysis_<op>`. */
export const ANALYSIS_JOB_OPS = [
  'matrix',
  'database_similarity',
  'embeddings_file',
  'cluster',
  'visualize_file',
] as const;
export type AnalysisJobOp = (typeof ANALYSIS_JOB_OPS)[number];

/** What the API writes to `analysisJobKeys.request(job)` before starting the workflow. */
export type AnalysisJobRequest =
  | { op: 'matrix'; list1: string[]; list2?: string[]; searchType: string }
  | { op: 'database_similarity'; smiles?: string[]; sourceDb?: string; dbNames: string[]; bins: number }
  | {
      op: 'embeddings_file';
      accountId: string;
      smiles: string[];
      kind: string;
      searchType: string;
      /** Output paths in the caller's file area (checked by the API) and their object keys. */
      npyPath: string;
      indexPath: string;
      npyKey: string;
      indexKey: string;
      inputFile: string;
      destFolder: string;
    }
  | {
      op: 'cluster';
      smiles: string[];
      /** The engine's cluster parameters (method, threshold, n_clusters, seed, …). */
      params: Record<string, unknown>;
      clusteringId: string;
      /** Object key of the stored clustering in the caller's area (for /nearest_cluster). */
      modelKey: string;
    }
  | {
      op: 'visualize_file';
      smiles: string[];
      /** The engine's map parameters (method, seed, perplexity, …). */
      params: Record<string, unknown>;
      inputFile: string;
      destFolder: string;
      csvPath: string;
      csvKey: string;
    };

export const analysisJobKeys = {
  request: (job: string) => `analysis-jobs/${job}/request.json`,
  part: (job: string, chunk: number) => `analysis-jobs/${job}/part-${String(chunk).padStart(5, '0')}.bin`,
  /** The result summary (JSON) a user fetches with /analysis_result. */
  result: (job: string) => `analysis-jobs/${job}/result.json`,
  /** A result file (e.g. matrix.npy, nearest.npy) a user fetches with /analysis_result_file. */
  file: (job: string, name: string) => `analysis-jobs/${job}/files/${name}`,
};

export interface AnalysisJobInput {
  jobName: string;
  /** Queue of the CPU-bound chunk activities. */
  scanQueue: string;
  /** Chunks running at once (default 2). */
  concurrency?: number;
}

export interface AnalysisJobResult {
  status: 'SUCCESS';
  resultKey: string;
  rows: number;
}

/** Rows per chunk: one chunk is one activity, one part in the object store, one progress step. */
export const ANALYSIS_CHUNK_ROWS = 1000;
