import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../platform/logger.ts';
import type { Db } from './db.ts';

/** The versioned SQL files shipped with the store: `NNN_name.sql`, applied in ascending order. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

const FILE_PATTERN = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

/**
 * Key of the transaction-scoped advisory lock that serialises migrations of one PostgreSQL
 * database: two processes starting at once apply each migration exactly once.
 */
const MIGRATION_LOCK_KEY = 727_004_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  /** Versions applied by this call (empty when the schema was already current). */
  applied: number[];
  /** Highest version present after the call. */
  current: number;
}

/** Reads and orders the migration files of `dir`; throws on a duplicate version or a stray .sql name. */
export async function loadMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const out: Migration[] = [];
  for (const file of files) {
    const m = FILE_PATTERN.exec(file);
    if (!m) throw new Error(`migration file ${file} must be named NNN_snake_name.sql`);
    const version = Number(m[1]);
    if (out.some((x) => x.version === version))
      throw new Error(`duplicate migration version ${version} (${file})`);
    const sql = await readFile(join(dir, file), 'utf8');
    out.push({ version, name: m[2], sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return out.sort((a, b) => a.version - b.version);
}

/**
 * Brings the schema up to date: in ONE transaction, takes the migration lock (PostgreSQL), creates
 * `schema_migrations` if needed, applies every migration not yet recorded in version order and
 * records it. A failure rolls everything back. Running it again is a no-op. A recorded migration
 * whose file changed since is reported with a warning, never re-applied: add a new file instead.
 * Migrations must be transactional (no CREATE INDEX CONCURRENTLY).
 */
export async function migrate(db: Db, opts: { log?: Logger; dir?: string } = {}): Promise<MigrateResult> {
  const migrations = await loadMigrations(opts.dir);
  const result = await db.transaction(async (tx) => {
    if (tx.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version     integer PRIMARY KEY,
      name        text NOT NULL,
      checksum    text NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await tx.query<{ version: number; checksum: string }>(
      'SELECT version, checksum FROM schema_migrations',
    );
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    const applied: number[] = [];
    for (const m of migrations) {
      const recorded = done.get(m.version);
      if (recorded !== undefined) {
        if (recorded !== m.checksum)
          opts.log?.warn(
            { version: m.version, name: m.name },
            'applied migration file has changed since; not re-applied',
          );
        continue;
      }
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        m.checksum,
      ]);
      applied.push(m.version);
    }
    const known = [...done.keys(), ...applied];
    return { applied, current: known.length ? Math.max(...known) : 0 };
  });
  if (result.applied.length) opts.log?.info(result, 'applied database migrations');
  return result;
}
