import type { Db } from './db.ts';

/**
 * Download records: one per /prepare_download call, owned by an account, pointing at a job. The
 * download workflow fills `keys` (format → object key) and moves the status to READY or FAILURE.
 */

export const DOWNLOAD_STATUSES = ['PENDING', 'STARTED', 'READY', 'FAILURE'] as const;
export type DownloadStatus = (typeof DOWNLOAD_STATUSES)[number];

export interface DownloadRecord {
  id: string;
  jobId: string;
  accountId: string;
  formats: string[];
  status: DownloadStatus;
  /** format → object key of the finished file. */
  keys: Record<string, string>;
  params: Record<string, unknown>;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Downloads {
  create(d: {
    id: string;
    jobId: string;
    accountId: string;
    formats: string[];
    params: Record<string, unknown>;
  }): Promise<DownloadRecord>;
  /** The download if it belongs to accountId (any owner when accountId is undefined). */
  get(id: string, accountId?: string): Promise<DownloadRecord | undefined>;
  /** The account's downloads, newest first. */
  list(accountId: string, limit?: number): Promise<DownloadRecord[]>;
  /** Sets the status (never leaves READY/FAILURE) and merges `keys`. */
  update(
    id: string,
    u: { status?: DownloadStatus; keys?: Record<string, string>; error?: string },
  ): Promise<DownloadRecord | undefined>;
}

type Row = {
  id: string;
  job_id: string;
  account_id: string;
  formats: string[];
  status: DownloadStatus;
  keys: Record<string, string>;
  params: Record<string, unknown> | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
};

const toRecord = (r: Row): DownloadRecord => ({
  id: r.id,
  jobId: r.job_id,
  accountId: r.account_id,
  formats: r.formats ?? [],
  status: r.status,
  keys: r.keys ?? {},
  params: r.params ?? {},
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The downloads repository over `db`. */
export function createDownloads(db: Db): Downloads {
  return {
    async create(d) {
      const rows = await db.query<Row>(
        `INSERT INTO downloads (id, job_id, account_id, formats, status, params) VALUES ($1, $2, $3, $4::jsonb, 'PENDING', $5::jsonb)
         ON CONFLICT (id) DO UPDATE SET updated_at = downloads.updated_at RETURNING *`,
        [d.id, d.jobId, d.accountId, JSON.stringify(d.formats), JSON.stringify(d.params)],
      );
      return toRecord(rows[0]);
    },
    async get(id, accountId) {
      const rows =
        accountId === undefined
          ? await db.query<Row>('SELECT * FROM downloads WHERE id = $1', [id])
          : await db.query<Row>('SELECT * FROM downloads WHERE id = $1 AND account_id = $2', [id, accountId]);
      return rows[0] ? toRecord(rows[0]) : undefined;
    },
    async list(accountId, limit = 1000) {
      const rows = await db.query<Row>(
        'SELECT * FROM downloads WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
        [accountId, limit],
      );
      return rows.map(toRecord);
    },
    async update(id, u) {
      const rows = await db.query<Row>(
        `UPDATE downloads SET
           status = COALESCE($2::text, status),
           keys = CASE WHEN $3::jsonb IS NULL THEN keys ELSE keys || $3::jsonb END,
           error = COALESCE($4::text, error),
           updated_at = now()
         WHERE id = $1 AND status NOT IN ('READY', 'FAILURE') RETURNING *`,
        [id, u.status ?? null, u.keys ? JSON.stringify(u.keys) : null, u.error ?? null],
      );
      return rows[0] ? toRecord(rows[0]) : this.get(id);
    },
  };
}
