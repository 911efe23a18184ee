import type { Db } from './db.ts';

/**
 * Legacy jobs and uploads in the metadata store. A job row is created by the API when it starts the
 * workflow (status PENDING) and moved on by the workflow's bookkeeping activity. Every read is
 * scoped to the owning account: another user's job does not exist for the caller.
 */

/** The legacy job statuses clients poll on; the last three are final. */
export const JOB_STATUSES = ['PENDING', 'STARTED', 'SUCCESS', 'FAILURE', 'REVOKED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_JOB_STATUSES: readonly JobStatus[] = ['SUCCESS', 'FAILURE', 'REVOKED'];

export interface JobProgress {
  shardsDone?: number;
  shardsTotal?: number;
  /** 3D jobs: rows aligned and scored so far, and rows skipped for want of a 3D model. */
  rowsScored?: number;
  rowsRejected?: number;
  /** A synthon job slice stopped at its limits (time or products): the hits are the best found. */
  timedOut?: boolean;
  /** A structure-mode synthon job had more hits than its slices rank: the hits are the best ranked. */
  hitCapReached?: boolean;
  /**
   * Synthon jobs: how far each slice got (slice index → 0..1, 1 = its part is written) and the
   * slice count; written by the scan activities (Jobs.sliceProgress), so the job moves within slices.
   */
  slices?: Record<string, number>;
  slicesTotal?: number;
  /**
   * Synthon jobs with a 3D scorer: `rerank_3d` once the slices are done and the shortlist is
   * being embedded (shardsDone/shardsTotal then count its products).
   */
  stage?: 'rerank_3d';
}

export interface JobRecord {
  id: string;
  accountId: string;
  kind: string;
  status: JobStatus;
  params: Record<string, unknown>;
  resultKey: string | null;
  error: string | null;
  rows: number | null;
  progress: JobProgress;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface JobUpdate {
  status?: JobStatus;
  resultKey?: string;
  error?: string;
  rows?: number;
  progress?: JobProgress;
}

export interface UploadRecord {
  id: string;
  accountId: string;
  path: string;
  objectKey: string;
  bytes: number;
  createdAt: Date;
}

export interface Jobs {
  create(job: {
    id: string;
    accountId: string;
    kind: string;
    params: Record<string, unknown>;
  }): Promise<JobRecord>;
  /** The job if it belongs to accountId (or to anyone when accountId is undefined: workers). */
  get(id: string, accountId?: string): Promise<JobRecord | undefined>;
  /** The account's jobs, newest first. */
  list(accountId: string, limit?: number): Promise<JobRecord[]>;
  /**
   * Applies an update unless the job is already final (a late SUCCESS never overwrites REVOKED).
   * Returns the job as stored afterwards.
   */
  update(id: string, update: JobUpdate): Promise<JobRecord | undefined>;
  /**
   * Merges slice fractions (index → 0..1) into progress.slices of a job not yet final, in one
   * statement, so slices reporting at once (other activities, other workers) never lose each
   * other's values.
   */
  sliceProgress(id: string, slices: Record<string, number>, slicesTotal: number): Promise<void>;
}

export interface Uploads {
  /** Records an upload at `path` (the newest record of a path wins). */
  record(upload: Omit<UploadRecord, 'createdAt'>): Promise<UploadRecord>;
  /** The newest upload of the account at `path`. */
  byPath(accountId: string, path: string): Promise<UploadRecord | undefined>;
  list(accountId: string, limit?: number): Promise<UploadRecord[]>;
}

type JobRow = {
  id: string;
  account_id: string;
  kind: string;
  status: JobStatus;
  params: Record<string, unknown>;
  result_key: string | null;
  error: string | null;
  rows: number | null;
  progress: JobProgress | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
};

const toJob = (r: JobRow): JobRecord => ({
  id: r.id,
  accountId: r.account_id,
  kind: r.kind,
  status: r.status,
  params: r.params ?? {},
  resultKey: r.result_key,
  error: r.error,
  rows: r.rows,
  progress: r.progress ?? {},
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  finishedAt: r.finished_at,
});

const FINAL_SQL = `('SUCCESS','FAILURE','REVOKED')`;

/** The jobs repository over `db`. */
export function createJobs(db: Db): Jobs {
  return {
    async create(job) {
      const rows = await db.query<JobRow>(
        `INSERT INTO jobs (id, account_id, kind, status, params) VALUES ($1, $2, $3, 'PENDING', $4::jsonb)
         ON CONFLICT (id) DO UPDATE SET updated_at = jobs.updated_at RETURNING *`,
        [job.id, job.accountId, job.kind, JSON.stringify(job.params)],
      );
      return toJob(rows[0]);
    },
    async get(id, accountId) {
      const rows =
        accountId === undefined
          ? await db.query<JobRow>('SELECT * FROM jobs WHERE id = $1', [id])
          : await db.query<JobRow>('SELECT * FROM jobs WHERE id = $1 AND account_id = $2', [id, accountId]);
      return rows[0] ? toJob(rows[0]) : undefined;
    },
    async list(accountId, limit = 1000) {
      const rows = await db.query<JobRow>(
        'SELECT * FROM jobs WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
        [accountId, limit],
      );
      return rows.map(toJob);
    },
    async update(id, u) {
      const final = u.status !== undefined && FINAL_JOB_STATUSES.includes(u.status);
      const rows = await db.query<JobRow>(
        `UPDATE jobs SET
           status = COALESCE($2, status),
           result_key = COALESCE($3, result_key),
           error = COALESCE($4, error),
           rows = COALESCE($5, rows),
           progress = CASE WHEN $6::jsonb IS NULL THEN progress ELSE progress || $6::jsonb
             -- Over the same total, shardsDone never goes back: a progress record retried late
             -- (its first attempt's worker stopped) must not undo the ones recorded after it. A
             -- new total is a new stage (a synthon job's 3D stage counts products, not slices).
             || CASE WHEN (progress->>'shardsDone')::int > ($6::jsonb->>'shardsDone')::int
                  AND COALESCE($6::jsonb->'shardsTotal', progress->'shardsTotal')
                    IS NOT DISTINCT FROM progress->'shardsTotal'
                  THEN jsonb_build_object('shardsDone', progress->'shardsDone') ELSE '{}'::jsonb END
           END,
           finished_at = CASE WHEN $7::boolean THEN now() ELSE finished_at END,
           updated_at = now()
         WHERE id = $1 AND status NOT IN ${FINAL_SQL}
           AND NOT (status = 'STARTED' AND COALESCE($2::text, '') = 'PENDING')
         RETURNING *`,
        [
          id,
          u.status ?? null,
          u.resultKey ?? null,
          u.error ?? null,
          u.rows ?? null,
          u.progress ? JSON.stringify(u.progress) : null,
          final,
        ],
      );
      if (rows[0]) return toJob(rows[0]);
      return this.get(id);
    },
    async sliceProgress(id, slices, slicesTotal) {
      await db.query(
        `UPDATE jobs SET
           progress = jsonb_set(progress, '{slices}', COALESCE(progress->'slices', '{}'::jsonb) || $2::jsonb)
             || jsonb_build_object('slicesTotal', $3::int),
           updated_at = now()
         WHERE id = $1 AND status NOT IN ${FINAL_SQL}`,
        [id, JSON.stringify(slices), slicesTotal],
      );
    },
  };
}

type UploadRow = {
  id: string;
  account_id: string;
  path: string;
  object_key: string;
  bytes: number;
  created_at: Date;
};
const toUpload = (r: UploadRow): UploadRecord => ({
  id: r.id,
  accountId: r.account_id,
  path: r.path,
  objectKey: r.object_key,
  bytes: Number(r.bytes),
  createdAt: r.created_at,
});

/** The uploads repository over `db` (files given to /search_file). */
export function createUploads(db: Db): Uploads {
  return {
    async record(u) {
      const rows = await db.query<UploadRow>(
        'INSERT INTO uploads (id, account_id, path, object_key, bytes) VALUES ($1, $2, $3, $4, $5) RETURNING *',
        [u.id, u.accountId, u.path, u.objectKey, u.bytes],
      );
      return toUpload(rows[0]);
    },
    async byPath(accountId, path) {
      const rows = await db.query<UploadRow>(
        'SELECT * FROM uploads WHERE account_id = $1 AND path = $2 ORDER BY created_at DESC, id DESC LIMIT 1',
        [accountId, path],
      );
      return rows[0] ? toUpload(rows[0]) : undefined;
    },
    async list(accountId, limit = 1000) {
      const rows = await db.query<UploadRow>(
        'SELECT * FROM uploads WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
        [accountId, limit],
      );
      return rows.map(toUpload);
    },
  };
}
