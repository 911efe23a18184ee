import type { Logger } from '../platform/logger.ts';
import { createAccounts, type Accounts } from './accounts.ts';
import { openDatabase, type Db } from './db.ts';
import { createDownloads, type Downloads } from './downloads.ts';
import { createJobs, createUploads, type Jobs, type Uploads } from './jobs.ts';
import { migrate } from './migrate.ts';
import { createRunsRepository, type RunsRepository } from './runs.ts';

export type { Db } from './db.ts';
export type {
  Accounts,
  AuthResult,
  AuthFailure,
  AuthenticatedAccount,
  CreatedKey,
  KeyInfo,
  ConsumeResult,
  UsageStatus,
} from './accounts.ts';
export { AUTH_FAILURES, hashApiKey, rateLimitedError, unauthorizedError } from './accounts.ts';
export { openDatabase, redactUrl } from './db.ts';
export { migrate, loadMigrations, MIGRATIONS_DIR } from './migrate.ts';
export { nextUtcMidnight, utcDay } from './usage.ts';
export type { Jobs, JobRecord, JobStatus, Uploads, UploadRecord } from './jobs.ts';
export type { Downloads, DownloadRecord, DownloadStatus } from './downloads.ts';
export type { RunsRepository, RunRow, ItemRow, RunEvent, RunStatus, ItemStatus } from './runs.ts';

export interface StoreConfig {
  /** PostgreSQL URL; undefined means the embedded PGlite database in pgliteDir. */
  databaseUrl?: string;
  /** PGlite data directory ('memory://' for an in-memory database). */
  pgliteDir: string;
  tierLimits: Record<string, number>;
}

/**
 * The metadata store: every repository, built once over one database. Callers take the
 * repositories they need; `db` is for migrations, the health probe and tests, never for queries
 * of a capability (those belong in its repository).
 */
export interface Store {
  db: Db;
  /** API keys, authentication and daily usage (keys and usage live with the accounts). */
  accounts: Accounts;
  /** Legacy jobs. */
  jobs: Jobs;
  /** Files users uploaded into their area. */
  uploads: Uploads;
  /** Download preparations of job results. */
  downloads: Downloads;
  /** v2 runs, their items, events and idempotency keys. */
  runs: RunsRepository;
  /** Resolves when the database answers (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the metadata database (PostgreSQL when `databaseUrl` is set, else PGlite in `pgliteDir`,
 * one process per directory) and applies pending migrations before returning. A PGlite
 * directory is locked by the process that opens it (`<dir>.lock`): a second process is refused
 * with the owner's pid (platform/process-lock.ts); PostgreSQL may be shared freely.
 */
export async function openStore(config: StoreConfig, log?: Logger): Promise<Store> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, log });
  try {
    await migrate(db, { log });
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return {
    db,
    accounts: createAccounts(db, { tierLimits: config.tierLimits }),
    jobs: createJobs(db),
    uploads: createUploads(db),
    downloads: createDownloads(db),
    runs: createRunsRepository(db),
    ping: async () => void (await db.query('SELECT 1')),
    close: () => db.close(),
  };
}
