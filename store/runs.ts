/**
 * Repository of v2 runs: runs, their items, their ordered events and the idempotency keys that
 * map a caller's Idempotency-Key to one run. The run row's status, progress and
 * last_event_sequence are written in the same transaction as the events, so what GET /runs/{id}
 * shows always matches the last event served.
 */
import { DomainError } from '../platform/errors.ts';
import type { Db } from './db.ts';

export const RUN_STATUSES = [
  'queued',
  'running',
  'completed',
  'completed_with_errors',
  'failed',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = [
  'completed',
  'completed_with_errors',
  'failed',
  'cancelled',
];
export const ITEM_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export interface Progress {
  pending: number;
  running: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  total: number;
}

export interface RunRow {
  id: string;
  account_id: string;
  kind: string;
  status: RunStatus;
  document: Record<string, unknown>;
  specification_hash: string;
  metadata: Record<string, string>;
  progress: Progress;
  last_event_sequence: number;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
}

export interface ItemRow {
  run_id: string;
  item_id: string;
  input_index: number;
  status: ItemStatus;
  attempt_count: number;
  result_key: string | null;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  completed_seq: number | null;
}

export interface RunEvent {
  sequence: number;
  type: string;
  item_id: string | null;
  status: string | null;
  progress: Progress;
  payload?: Record<string, unknown> | null;
  created_at?: Date;
}

export interface CreateRunInput {
  id: string;
  accountId: string;
  kind: string;
  document: unknown;
  specificationHash: string;
  metadata: Record<string, string>;
  idempotencyKey: string;
  items: { id: string; input_index: number }[];
  /** Retention: expires_at = created_at + this many seconds. */
  retentionSeconds: number;
}

const RUN_COLUMNS =
  'id, account_id, kind, status, document, specification_hash, metadata, progress, last_event_sequence, idempotency_key, created_at, updated_at, expires_at';

/** An opaque page cursor: base64url JSON. */
export const encodeCursor = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
/** Decodes a cursor; throws validation_error for anything this service did not issue. */
export function decodeCursor<T>(cursor: string, check: (v: unknown) => v is T): T {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (check(v)) return v;
  } catch {
    /* fall through */
  }
  throw new DomainError('validation_error', 'cursor: not a cursor issued by this service', {
    issues: [{ loc: ['query', 'cursor'], msg: 'invalid cursor', type: 'value_error.cursor' }],
  });
}

/** The largest value of the database's `integer` columns (sequences, input indexes). */
export const INT32_MAX = 2_147_483_647;
/** A cursor holding a sequence or an input index: an integer the `integer` columns can compare with. */
export const isIntCursor = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= -1 && (v as number) <= INT32_MAX;
/** Run ids as this service issues them (anything else is no run of ours, checked before any query). */
export const RUN_ID_PATTERN = /^run_[0-9a-f]{32}$/;

export function emptyProgress(total: number): Progress {
  return { pending: total, running: 0, succeeded: 0, failed: 0, cancelled: 0, total };
}

/** The runs repository over the metadata database. */
export function createRunsRepository(db: Db) {
  return {
    /**
     * Creates the run and its items, or returns the run the caller's idempotency key already
     * maps to. Concurrent duplicates serialize on the key's primary key: exactly one creates.
     * Throws idempotency_conflict when the key was used with a different document.
     */
    async createOrGet(input: CreateRunInput): Promise<{ run: RunRow; created: boolean }> {
      return db.transaction(async (tx) => {
        const claimed = await tx.query<{ run_id: string }>(
          'INSERT INTO idempotency_keys (account_id, key, request_hash, run_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING run_id',
          [input.accountId, input.idempotencyKey, input.specificationHash, input.id],
        );
        if (!claimed.length) {
          const [prev] = await tx.query<{ request_hash: string; run_id: string }>(
            'SELECT request_hash, run_id FROM idempotency_keys WHERE account_id = $1 AND key = $2',
            [input.accountId, input.idempotencyKey],
          );
          if (prev.request_hash !== input.specificationHash) {
            throw new DomainError(
              'idempotency_conflict',
              `Idempotency-Key ${JSON.stringify(input.idempotencyKey)} was already used with a different run document (run ${prev.run_id})`,
            );
          }
          const [run] = await tx.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [
            prev.run_id,
          ]);
          if (!run)
            throw new DomainError('not_found', `run ${prev.run_id} of this Idempotency-Key has expired`);
          return { run, created: false };
        }
        const [run] = await tx.query<RunRow>(
          `INSERT INTO runs (id, account_id, kind, status, document, specification_hash, metadata, progress, idempotency_key, expires_at)
           VALUES ($1, $2, $3, 'queued', $4::jsonb, $5, $6::jsonb, $7::jsonb, $8, now() + make_interval(secs => $9)) RETURNING ${RUN_COLUMNS}`,
          [
            input.id,
            input.accountId,
            input.kind,
            JSON.stringify(input.document),
            input.specificationHash,
            JSON.stringify(input.metadata),
            JSON.stringify(emptyProgress(input.items.length)),
            input.idempotencyKey,
            input.retentionSeconds,
          ],
        );
        for (let i = 0; i < input.items.length; i += 500) {
          const chunk = input.items.slice(i, i + 500);
          await tx.query(
            `INSERT INTO run_items (run_id, item_id, input_index, status) SELECT $1, t.id, t.idx, 'pending' FROM jsonb_to_recordset($2::jsonb) AS t(id text, idx integer)`,
            [input.id, JSON.stringify(chunk.map((c) => ({ id: c.id, idx: c.input_index })))],
          );
        }
        return { run, created: true };
      });
    },

    /** The run if it belongs to the account and has not expired. */
    async get(accountId: string | null, id: string, now = new Date()): Promise<RunRow | undefined> {
      const rows = await db.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND ($2::text IS NULL OR account_id = $2) AND expires_at > $3`,
        [id, accountId, now],
      );
      return rows[0];
    },

    /** Newest first; keyset paging on (created_at, id). */
    async list(
      accountId: string,
      opts: { cursor?: string; limit: number; status?: string },
      now = new Date(),
    ): Promise<{ data: RunRow[]; next_cursor: string | null }> {
      const after = opts.cursor
        ? decodeCursor(
            opts.cursor,
            (v): v is [string, string] =>
              Array.isArray(v) &&
              v.length === 2 &&
              typeof v[0] === 'string' &&
              /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(v[0]) &&
              !Number.isNaN(Date.parse(v[0])) &&
              typeof v[1] === 'string' &&
              RUN_ID_PATTERN.test(v[1]),
          )
        : undefined;
      const rows = await db.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM runs WHERE account_id = $1 AND expires_at > $2 AND ($3::text IS NULL OR status = $3)
           AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
         ORDER BY created_at DESC, id DESC LIMIT $6`,
        [accountId, now, opts.status ?? null, after?.[0] ?? null, after?.[1] ?? null, opts.limit + 1],
      );
      const more = rows.length > opts.limit;
      const data = rows.slice(0, opts.limit);
      const last = data[data.length - 1];
      return {
        data,
        next_cursor: more && last ? encodeCursor([last.created_at.toISOString(), last.id]) : null,
      };
    },

    async items(
      runId: string,
      opts: { cursor?: string; limit: number; status?: string },
    ): Promise<{ data: ItemRow[]; next_cursor: string | null }> {
      const after = opts.cursor ? decodeCursor(opts.cursor, isIntCursor) : -1;
      const rows = await db.query<ItemRow>(
        `SELECT * FROM run_items WHERE run_id = $1 AND input_index > $2 AND ($3::text IS NULL OR status = $3) ORDER BY input_index LIMIT $4`,
        [runId, after, opts.status ?? null, opts.limit + 1],
      );
      const data = rows.slice(0, opts.limit);
      return {
        data,
        next_cursor: rows.length > opts.limit ? encodeCursor(data[data.length - 1].input_index) : null,
      };
    },

    /** Finished items (succeeded with results, and failed), by completion (event sequence) or input order. */
    async results(
      runId: string,
      opts: { cursor?: string; limit: number; order: 'completion' | 'input' },
    ): Promise<{ data: ItemRow[]; next_cursor: string | null }> {
      const col = opts.order === 'completion' ? 'completed_seq' : 'input_index';
      const after = opts.cursor ? decodeCursor(opts.cursor, isIntCursor) : -1;
      const rows = await db.query<ItemRow>(
        `SELECT * FROM run_items WHERE run_id = $1 AND status IN ('succeeded', 'failed') AND completed_seq IS NOT NULL AND ${col} > $2 ORDER BY ${col} LIMIT $3`,
        [runId, after, opts.limit + 1],
      );
      const data = rows.slice(0, opts.limit);
      const last = data[data.length - 1];
      return {
        data,
        next_cursor:
          rows.length > opts.limit
            ? encodeCursor(opts.order === 'completion' ? last.completed_seq : last.input_index)
            : null,
      };
    },

    async events(runId: string, after: number, limit: number): Promise<RunEvent[]> {
      return db.query<RunEvent>(
        'SELECT sequence, type, item_id, status, progress, payload, created_at FROM run_events WHERE run_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3',
        [runId, after, limit],
      );
    },

    /**
     * Appends events idempotently (a replayed append inserts nothing) and, in the same
     * transaction, moves the run's status/progress/last_event_sequence to the newest event and
     * stamps item events' sequence on the item (completion order).
     */
    async appendEvents(runId: string, events: RunEvent[]): Promise<void> {
      if (!events.length) return;
      await db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO run_events (run_id, sequence, type, item_id, status, progress, payload)
           SELECT $1, e.sequence, e.type, e.item_id, e.status, e.progress, e.payload FROM jsonb_to_recordset($2::jsonb)
             AS e(sequence integer, type text, item_id text, status text, progress jsonb, payload jsonb)
           ON CONFLICT (run_id, sequence) DO NOTHING`,
          [runId, JSON.stringify(events.map((e) => ({ ...e, payload: e.payload ?? null })))],
        );
        const itemEvents = events.filter(
          (e) => e.item_id && (e.type === 'item.succeeded' || e.type === 'item.failed'),
        );
        if (itemEvents.length) {
          await tx.query(
            `UPDATE run_items AS i SET completed_seq = e.sequence FROM jsonb_to_recordset($2::jsonb) AS e(sequence integer, item_id text)
             WHERE i.run_id = $1 AND i.item_id = e.item_id AND i.completed_seq IS NULL`,
            [runId, JSON.stringify(itemEvents.map((e) => ({ sequence: e.sequence, item_id: e.item_id })))],
          );
        }
        const last = events.reduce((a, b) => (b.sequence > a.sequence ? b : a));
        const runStatus = last.type.startsWith('run.') && last.status ? last.status : 'running';
        await tx.query(
          `UPDATE runs SET last_event_sequence = $2, progress = $3::jsonb, status = $4, updated_at = now() WHERE id = $1 AND last_event_sequence < $2`,
          [runId, last.sequence, JSON.stringify(last.progress), runStatus],
        );
      });
    },

    /** Marks an item running and counts the attempt; returns the attempt number. */
    async startItem(runId: string, itemId: string): Promise<number> {
      const [r] = await db.query<{ attempt_count: number }>(
        `UPDATE run_items SET status = CASE WHEN status IN ('succeeded', 'failed') THEN status ELSE 'running' END, attempt_count = attempt_count + 1, updated_at = now()
         WHERE run_id = $1 AND item_id = $2 RETURNING attempt_count`,
        [runId, itemId],
      );
      if (!r) throw new Error(`run item ${runId}/${itemId} not found`);
      return r.attempt_count;
    },

    async finishItem(
      runId: string,
      itemId: string,
      outcome: {
        status: 'succeeded' | 'failed';
        resultKey?: string;
        result?: unknown;
        error?: { code: string; message: string };
      },
    ): Promise<void> {
      await db.query(
        `UPDATE run_items SET status = $3, result_key = $4, result = $5::jsonb, error = $6::jsonb, updated_at = now() WHERE run_id = $1 AND item_id = $2 AND status <> 'cancelled'`,
        [
          runId,
          itemId,
          outcome.status,
          outcome.resultKey ?? null,
          outcome.result === undefined ? null : JSON.stringify(outcome.result),
          outcome.error ? JSON.stringify(outcome.error) : null,
        ],
      );
    },

    /** Items not finished become cancelled (run cancellation); returns the resulting counts by status. */
    async cancelOpenItems(runId: string, itemIds?: string[]): Promise<Record<ItemStatus, number>> {
      await db.query(
        `UPDATE run_items SET status = 'cancelled', updated_at = now() WHERE run_id = $1 AND status IN ('pending', 'running') AND ($2::jsonb IS NULL OR item_id IN (SELECT jsonb_array_elements_text($2::jsonb)))`,
        [runId, itemIds ? JSON.stringify(itemIds) : null],
      );
      const rows = await db.query<{ status: ItemStatus; n: number }>(
        'SELECT status, count(*) AS n FROM run_items WHERE run_id = $1 GROUP BY status',
        [runId],
      );
      const counts = { pending: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 };
      for (const r of rows) counts[r.status] = r.n;
      return counts;
    },

    async item(runId: string, itemId: string): Promise<ItemRow | undefined> {
      return (
        await db.query<ItemRow>('SELECT * FROM run_items WHERE run_id = $1 AND item_id = $2', [runId, itemId])
      )[0];
    },

    async document(runId: string): Promise<Record<string, unknown> | undefined> {
      return (
        await db.query<{ document: Record<string, unknown> }>('SELECT document FROM runs WHERE id = $1', [
          runId,
        ])
      )[0]?.document;
    },

    /** Deletes runs whose retention ended; returns their ids (so their objects can be deleted). */
    async purgeExpired(now = new Date(), limit = 500): Promise<string[]> {
      const rows = await db.query<{ id: string }>(
        'DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2) RETURNING id',
        [now, limit],
      );
      if (rows.length)
        await db.query(
          'DELETE FROM idempotency_keys WHERE run_id IN (SELECT jsonb_array_elements_text($1::jsonb))',
          [JSON.stringify(rows.map((r) => r.id))],
        );
      return rows.map((r) => r.id);
    },
  };
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
