import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir } from 'node:fs/promises';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from '../platform/logger.ts';
import { acquireLock } from '../platform/process-lock.ts';
import { registerWasmMemory } from '../platform/memory.ts';

/**
 * One SQL dialect over two drivers: PostgreSQL (`pg` pool) in production, PGlite embedded.
 * Both use `$1` placeholders and return rows with the same JS types:
 * - int8 (bigint, count(*)) and numeric become numbers (ids and counters here stay far below 2^53);
 * - date becomes the string 'YYYY-MM-DD' (no local-timezone shifting of calendar days);
 * - timestamptz becomes a Date; json/jsonb become parsed values.
 * jsonb parameters: pass `JSON.stringify(value)` and cast `$n::jsonb`. `pg` would turn a JS array
 * into a Postgres array literal, so passing raw objects is not portable.
 */
export interface Db {
  readonly kind: 'postgres' | 'pglite';
  /** Runs one statement; returns its rows (empty for statements without RETURNING). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Runs fn inside BEGIN/COMMIT, ROLLBACK when it throws. Nested calls on `tx` use savepoints.
   * On PGlite (one connection) transactions and plain queries are serialised, so they never
   * interleave; on PostgreSQL each transaction holds its own pooled connection. Inside fn use
   * `tx` only: on PGlite the outer db would wait for the transaction, so that throws instead.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Closes the pool or the embedded database; idempotent. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres:// URL; when set, PostgreSQL is used. */
  databaseUrl?: string;
  /** PGlite data directory; undefined or 'memory://' keeps the database in memory (tests). */
  pgliteDir?: string;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** Names this process in the PGlite directory's lock (shown to a second process that is refused). */
  role?: string;
  log?: Logger;
}

const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082 } as const;

const toNumber = (v: string): number => Number(v);
const asText = (v: string): string => v;

/** Opens the metadata database: PostgreSQL when `databaseUrl` is given, otherwise PGlite. */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Db> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts) : openPglite(opts.pgliteDir, opts);
}

/** The URL without its password, for log lines and error messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable url)';
  }
}

async function openPostgres(url: string, opts: OpenDatabaseOptions): Promise<Db> {
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === OID.INT8 || oid === OID.NUMERIC) return toNumber;
      if (oid === OID.DATE) return asText;
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    types: types as pg.CustomTypesConfig,
  });
  // An idle client losing its connection emits 'error' on the pool; unhandled, it would crash the process.
  pool.on('error', (err) => opts.log?.warn({ err }, 'idle PostgreSQL connection failed'));
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    throw new Error(`cannot connect to PostgreSQL at ${redactUrl(url)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  opts.log?.info({ database: redactUrl(url) }, 'connected to PostgreSQL');

  let closed = false;
  const runner = (q: pg.Pool | pg.PoolClient) => ({
    async query<T>(sql: string, params?: unknown[]): Promise<T[]> {
      const r = await q.query(sql, params as unknown[] | undefined);
      return r.rows as T[];
    },
    async exec(sql: string): Promise<void> {
      await q.query(sql); // no parameters: simple protocol, several statements allowed
    },
  });

  const db: Db = {
    kind: 'postgres',
    ...runner(pool),
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: unknown;
      try {
        return await inTransaction(client.query.bind(client), 'postgres', runner(client), fn);
      } catch (err) {
        broken = (err as { rollbackFailed?: boolean }).rollbackFailed ? err : undefined;
        throw err;
      } finally {
        // A connection whose ROLLBACK failed is destroyed rather than returned to the pool.
        client.release(broken as Error | undefined);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
  return db;
}

async function openPglite(dir: string | undefined, opts: OpenDatabaseOptions): Promise<Db> {
  const parsers = { [OID.INT8]: toNumber, [OID.NUMERIC]: toNumber, [OID.DATE]: asText };
  const memory = !dir || dir === 'memory://';
  // A first start has no data/ yet; PGlite creates only the last path component.
  if (!memory) await mkdir(dir, { recursive: true });
  // Two processes on one PGlite directory corrupt each other's view (lost writes, Aborted()):
  // the directory's lock file refuses the second one with the owner's pid before PGlite opens.
  const dirLock = memory ? undefined : acquireLock(`${dir}.lock`, opts.role ?? defaultRole());
  let lite: PGlite;
  try {
    lite = await PGlite.create(memory ? undefined : dir, { parsers });
  } catch (err) {
    dirLock?.release();
    throw err;
  }
  opts.log?.info({ dir: memory ? 'memory' : dir }, 'opened embedded PGlite database');
  // PGlite is Postgres compiled to WebAssembly in this thread: its heap only grows, so memory
  // probes report it next to RDKit's (/metrics isolate_memory_bytes, kind wasm_pglite).
  registerWasmMemory('pglite', {
    get buffer() {
      return lite.Module.HEAPU8.buffer;
    },
  });
  const lock = createMutex();
  // Marks the async context of a running transaction, to refuse (not deadlock on) outer-db use in it.
  const inTx = new AsyncLocalStorage<boolean>();
  const locked = <T>(fn: () => Promise<T>): Promise<T> => {
    if (inTx.getStore()) {
      return Promise.reject(
        new Error('PGlite: use the transaction handle `tx` inside db.transaction(fn), not the outer db'),
      );
    }
    return lock.run(fn);
  };
  let closed = false;

  const direct = {
    async query<T>(sql: string, params?: unknown[]): Promise<T[]> {
      return (await lite.query<T>(sql, params)).rows;
    },
    async exec(sql: string): Promise<void> {
      await lite.exec(sql);
    },
  };

  return {
    kind: 'pglite',
    query: <T>(sql: string, params?: unknown[]) => locked(() => direct.query<T>(sql, params)),
    exec: (sql: string) => locked(() => direct.exec(sql)),
    transaction: <T>(fn: (tx: Db) => Promise<T>) =>
      locked(() =>
        inTx.run(true, () => inTransaction((sql: string) => lite.query(sql), 'pglite', direct, fn)),
      ),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await locked(() => lite.close());
      } finally {
        dirLock?.release();
      }
    },
  };
}

const defaultRole = () => `molsearch ${process.argv.slice(2, 3).join(' ') || 'process'}`.trim();

type Runner = Pick<Db, 'query' | 'exec'>;

/** BEGIN … COMMIT around fn on one connection; `tx` refuses use after the transaction ended. */
async function inTransaction<T>(
  raw: (sql: string) => Promise<unknown>,
  kind: Db['kind'],
  conn: Runner,
  fn: (tx: Db) => Promise<T>,
): Promise<T> {
  await raw('BEGIN');
  const scope = { open: true, savepoints: 0 };
  const tx = scopedDb(kind, conn, scope);
  try {
    const result = await fn(tx);
    scope.open = false;
    await raw('COMMIT');
    return result;
  } catch (err) {
    scope.open = false;
    try {
      await raw('ROLLBACK');
    } catch {
      if (err && typeof err === 'object') (err as { rollbackFailed?: boolean }).rollbackFailed = true;
    }
    throw err;
  }
}

function scopedDb(kind: Db['kind'], conn: Runner, scope: { open: boolean; savepoints: number }): Db {
  const guard = () => {
    if (!scope.open) throw new Error('transaction already finished: use the outer db, not a stale tx');
  };
  const tx: Db = {
    kind,
    async query<T>(sql: string, params?: unknown[]) {
      guard();
      return conn.query<T>(sql, params);
    },
    async exec(sql: string) {
      guard();
      return conn.exec(sql);
    },
    async transaction<T>(fn: (inner: Db) => Promise<T>): Promise<T> {
      guard();
      const name = `sp_${++scope.savepoints}`;
      await conn.exec(`SAVEPOINT ${name}`);
      try {
        const result = await fn(tx);
        await conn.exec(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (err) {
        await conn.exec(`ROLLBACK TO SAVEPOINT ${name}`);
        throw err;
      }
    },
    async close() {
      throw new Error('close() is not available inside a transaction');
    },
  };
  return tx;
}

/** A FIFO async mutex: PGlite has one connection, so a transaction must own it until COMMIT. */
function createMutex() {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(fn: () => Promise<T>): Promise<T> {
      const result = tail.then(fn);
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
