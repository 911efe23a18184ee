import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../store/db.ts';
import { BACKENDS, type TestTarget } from './backends.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(BACKENDS)('database on $title', (backend) => {
  if (!backend.available) {
    it.skip(`every database test (${backend.title})`, () => {});
    return;
  }
  let target: TestTarget;
  let db: Db;

  beforeAll(async () => {
    target = await backend.open();
    db = await openDatabase(target);
    await db.exec(`CREATE TABLE t (id integer PRIMARY KEY, n integer NOT NULL DEFAULT 0, doc jsonb, d date);
                   CREATE TABLE counter (id integer PRIMARY KEY, n integer NOT NULL);
                   INSERT INTO counter VALUES (1, 0);`);
  });
  afterAll(async () => {
    await db?.close();
    await target?.dispose();
  });

  it('reports its kind', () => {
    expect(db.kind).toBe(backend.name);
  });

  it('maps bigint and numeric to numbers, dates to YYYY-MM-DD and timestamptz to Date', async () => {
    const [row] = await db.query<Record<string, unknown>>(
      `SELECT count(*) AS c, 9007199254740::bigint AS big, 2.5::numeric AS num, '2026-03-01'::date AS d,
              '2026-03-01T12:00:00Z'::timestamptz AS ts FROM generate_series(1, 3)`,
    );
    expect(row).toEqual({
      c: 3,
      big: 9007199254740,
      num: 2.5,
      d: '2026-03-01',
      ts: new Date('2026-03-01T12:00:00Z'),
    });
  });

  it('round-trips jsonb objects and arrays passed as JSON text', async () => {
    const doc = { a: [1, 'two', { three: 3 }], b: null, c: true };
    await db.query('INSERT INTO t (id, doc, d) VALUES ($1, $2::jsonb, $3::date), ($4, $5::jsonb, NULL)', [
      1,
      JSON.stringify(doc),
      '2026-12-31',
      2,
      JSON.stringify([1, 2]),
    ]);
    const rows = await db.query<{ id: number; doc: unknown; d: string | null }>(
      'SELECT id, doc, d FROM t WHERE id IN (1, 2) ORDER BY id',
    );
    expect(rows).toEqual([
      { id: 1, doc, d: '2026-12-31' },
      { id: 2, doc: [1, 2], d: null },
    ]);
    const [q] = await db.query<{ x: unknown }>(`SELECT doc->'a'->2->>'three' AS x FROM t WHERE id = 1`);
    expect(q.x).toBe('3');
  });

  it('commits a transaction and returns its value', async () => {
    const v = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (10)');
      return 'done';
    });
    expect(v).toBe('done');
    expect(await db.query('SELECT id FROM t WHERE id = 10')).toHaveLength(1);
  });

  it('rolls a transaction back when it throws', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (11)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await db.query('SELECT id FROM t WHERE id = 11')).toHaveLength(0);
  });

  it('never shows uncommitted writes to queries outside the transaction', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO t (id) VALUES (12)');
      await gate;
      throw new Error('abort');
    });
    await sleep(20);
    const outside = db.query<{ c: number }>('SELECT count(*) AS c FROM t WHERE id = 12');
    await sleep(20);
    release();
    await expect(tx).rejects.toThrow('abort');
    expect((await outside)[0].c).toBe(0);
  });

  it('loses no update when 20 transactions read-modify-write one row concurrently', async () => {
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async (tx) => {
          const [r] = await tx.query<{ n: number }>('SELECT n FROM counter WHERE id = 1 FOR UPDATE');
          await sleep(1);
          await tx.query('UPDATE counter SET n = $1 WHERE id = 1', [r.n + 1]);
        }),
      ),
    );
    const [r] = await db.query<{ n: number }>('SELECT n FROM counter WHERE id = 1');
    expect(r.n).toBe(20);
  });

  it('rolls back a nested transaction to its savepoint and keeps the outer work', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (20)');
      await expect(
        tx.transaction(async (inner) => {
          await inner.query('INSERT INTO t (id) VALUES (21)');
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    const rows = await db.query<{ id: number }>('SELECT id FROM t WHERE id IN (20, 21) ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([20]);
  });

  it('refuses a transaction handle used after its transaction ended', async () => {
    let stale!: Db;
    await db.transaction(async (tx) => {
      stale = tx;
    });
    await expect(stale.query('SELECT 1')).rejects.toThrow(/transaction already finished/);
  });

  it('reports SQL errors as rejections and stays usable', async () => {
    await expect(db.query('SELECT * FROM no_such_table')).rejects.toThrow(/no_such_table/);
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

describe('openDatabase', () => {
  it('rejects use of the outer PGlite db inside its own transaction instead of deadlocking', async () => {
    const db = await openDatabase({ pgliteDir: 'memory://' });
    try {
      await expect(db.transaction(() => db.query('SELECT 1'))).rejects.toThrow(/use the transaction handle/);
      expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
      await db.close(); // idempotent
    }
  });

  it('fails fast on an unreachable PostgreSQL without printing the password', async () => {
    const err = await openDatabase({ databaseUrl: 'postgres://postgres:s3cret@127.0.0.1:1/none' }).catch(
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /cannot connect to PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none/,
    );
    expect((err as Error).message).not.toContain('s3cret');
  });
});
