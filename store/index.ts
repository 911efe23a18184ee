import type { Logger } from '../platform/logger.ts';
import { createAccounts, type Accounts } from './accounts.ts';
import { openDatabase, type Db } from './db.ts';
import { migrate } from './migrate.ts';

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

export interface StoreConfig {
  /** PostgreSQL URL; undefined means the embedded PGlite database in pgliteDir. */
  databaseUrl?: string;
  /** PGlite data directory ('memory://' for an in-memory database). */
  pgliteDir: string;
  tierLimits: Record<string, number>;
}

/** The metadata store: the database handle and the repositories built over it. */
export interface Store {
  db: Db;
  accounts: Accounts;
  close(): Promise<void>;
}

/**
 * Opens the metadata database (PostgreSQL when `databaseUrl` is set, else PGlite in `pgliteDir`,
 * one process per directory) and applies pending migrations before returning. A PGlite
 * directory must not be opened by two processes at once; PostgreSQL may be shared freely.
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
    close: () => db.close(),
  };
}
