import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * The two database backends every store test runs against. PostgreSQL is the machine's own
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test); each open() creates a
 * uniquely named database and dispose() drops it. When PostgreSQL cannot be reached the backend
 * is marked unavailable with the reason, and the suites show it as skipped, loudly.
 */
export interface TestTarget {
  /** Options for openDatabase / openStore. */
  databaseUrl?: string;
  pgliteDir: string;
  dispose(): Promise<void>;
}

export interface Backend {
  name: 'pglite' | 'postgres';
  title: string;
  available: boolean;
  open(): Promise<TestTarget>;
}

const adminUrl = inject('databaseUrl');

async function probe(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const unreachable = await probe(adminUrl);
if (unreachable) {
  console.warn(
    `\n\u26a0\ufe0f  PostgreSQL unreachable at ${adminUrl} (${unreachable}): the PostgreSQL store tests are SKIPPED, not passed.\n`,
  );
}

export const BACKENDS: Backend[] = [
  {
    name: 'pglite',
    title: 'pglite',
    available: true,
    async open() {
      return { pgliteDir: 'memory://', dispose: async () => {} };
    },
  },
  {
    name: 'postgres',
    title: unreachable
      ? `postgres (SKIPPED: PostgreSQL unreachable at ${adminUrl}: ${unreachable})`
      : 'postgres',
    available: !unreachable,
    async open() {
      const name = `molsearch_store_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      await adminQuery(`CREATE DATABASE ${name}`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return {
        databaseUrl: url.toString(),
        pgliteDir: 'memory://',
        dispose: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      };
    },
  },
];
