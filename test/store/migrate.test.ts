import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../store/db.ts';
import { loadMigrations, migrate } from '../../store/migrate.ts';
import { BACKENDS, type TestTarget } from './backends.ts';

const TABLES = [
  'accounts',
  'api_keys',
  'downloads',
  'idempotency_keys',
  'jobs',
  'run_events',
  'run_items',
  'runs',
  'schema_migrations',
  'uploads',
  'usage_daily',
];

async function tables(db: Db): Promise<string[]> {
  const rows = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}

// Other capabilities add migrations over time; expectations follow the shipped files.
const shipped = await loadMigrations();
const versions = shipped.map((m) => m.version);
const latest = Math.max(...versions);

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'molsearch-migrations-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('loadMigrations', () => {
  it('orders the shipped migrations by version', async () => {
    const ms = await loadMigrations();
    expect(ms[0]).toMatchObject({ version: 1, name: 'initial' });
    expect(ms.map((m) => m.version)).toEqual([...ms.map((m) => m.version)].sort((a, b) => a - b));
  });

  it('rejects a badly named file and a duplicate version', async () => {
    const bad = join(scratch, 'bad-name');
    const dup = join(scratch, 'dup');
    for (const [dir, files] of [
      [bad, ['001_ok.sql', 'second.sql']],
      [dup, ['001_a.sql', '001_b.sql']],
    ] as const) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir);
      for (const f of files) await writeFile(join(dir, f), 'SELECT 1;');
    }
    await expect(loadMigrations(bad)).rejects.toThrow(/second\.sql must be named NNN_snake_name\.sql/);
    await expect(loadMigrations(dup)).rejects.toThrow(/duplicate migration version 1/);
  });
});

describe.each(BACKENDS)('migrations on $title', (backend) => {
  if (!backend.available) {
    it.skip(`every migration test (${backend.title})`, () => {});
    return;
  }
  const targets: TestTarget[] = [];
  const dbs: Db[] = [];
  async function fresh(): Promise<{ target: TestTarget; db: Db }> {
    const target = await backend.open();
    targets.push(target);
    const db = await openDatabase(target);
    dbs.push(db);
    return { target, db };
  }
  afterAll(async () => {
    for (const db of dbs) await db.close();
    for (const t of targets) await t.dispose();
  });

  it('creates every table on first start and is a no-op on the next', async () => {
    const { db } = await fresh();
    const first = await migrate(db);
    expect(first).toEqual({ applied: versions, current: latest });
    expect(await tables(db)).toEqual(expect.arrayContaining(TABLES));
    const second = await migrate(db);
    expect(second).toEqual({ applied: [], current: latest });
    const rows = await db.query<{ version: number; name: string }>(
      'SELECT version, name FROM schema_migrations ORDER BY version',
    );
    expect(rows).toEqual(shipped.map((m) => ({ version: m.version, name: m.name })));
  });

  it('applies each migration exactly once when several starts race', async () => {
    const { target, db } = await fresh();
    // PostgreSQL: separate pools, as separate processes would be. PGlite: one process, one handle.
    const others =
      backend.name === 'postgres'
        ? await Promise.all([openDatabase(target), openDatabase(target)])
        : [db, db];
    if (backend.name === 'postgres') dbs.push(...others);
    const results = await Promise.all([migrate(db), migrate(others[0]), migrate(others[1])]);
    // Exactly one start applied everything; the others found the schema current.
    expect(results.map((r) => r.applied).sort((a, b) => b.length - a.length)).toEqual([versions, [], []]);
    expect(results.every((r) => r.current === latest)).toBe(true);
    const [count] = await db.query<{ c: number }>('SELECT count(*) AS c FROM schema_migrations');
    expect(count.c).toBe(versions.length);
    expect(await tables(db)).toEqual(expect.arrayContaining(TABLES));
  });

  it('rolls back every migration of a start when one of them fails', async () => {
    const dir = join(scratch, `failing-${backend.name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '001_first.sql'), 'CREATE TABLE first_table (id integer PRIMARY KEY);');
    await writeFile(
      join(dir, '002_broken.sql'),
      'CREATE TABLE second_table (id integer PRIMARY KEY);\nCREATE TABLE oops (;',
    );
    const { db } = await fresh();
    await expect(migrate(db, { dir })).rejects.toThrow();
    expect(await tables(db)).toEqual([]);
  });
});
