import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../api/app.ts';
import { createRunsService } from '../../../../api/services/runs.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { createLocalObjectStore } from '../../../../platform/object-store/index.ts';
import { staticRegistry } from '../../../../engine/selection/index.ts';
import { call, startHarness, type Harness } from './harness.ts';
import { batchDoc, submit, waitTerminal } from './run-helpers.ts';

// Real PostgreSQL (whose `integer` columns made out-of-range numbers a 500), real Temporal.
let h: Harness;
let id: string;
let last: number;
const INT32_MAX = 2_147_483_647;
beforeAll(async () => {
  h = await startHarness({ backend: 'postgres', worker: true, concurrency: 2 });
  const r = await submit(h, batchDoc(2, 2), 'bounds-key');
  id = r.body!.id;
  last = (await waitTerminal(h, id)).last_event_sequence;
}, 180_000);
afterAll(() => h?.close(), 60_000);

const issuePaths = (body: Record<string, any> | undefined) =>
  (body?.error?.details ?? []).map((d: { path: string }) => d.path).join(' ');

describe('numeric parameters are bounded at the edge', () => {
  it('answers 422 naming after or cursor beyond the int32 range, never 500', async () => {
    for (const q of ['after=2147483648', 'after=99999999999999999999', 'cursor=2147483648']) {
      const r = await call(h, 'GET', `/api/v2/runs/${id}/events?${q}`);
      expect(r.status, q).toBe(422);
      expect(issuePaths(r.body), q).toContain(q.split('=')[0]);
    }
    const stream = await call(h, 'GET', `/api/v2/runs/${id}/events/stream?after=2147483648`);
    expect(stream.status).toBe(422);
    const header = await call(h, 'GET', `/api/v2/runs/${id}/events/stream`, {
      headers: { 'last-event-id': '2147483648' },
    });
    expect(header.status).toBe(422);
  });

  it('reports the run’s real last_event_sequence whatever `after` the caller sends', async () => {
    expect(last).toBeGreaterThan(2);
    const r = await call(h, 'GET', `/api/v2/runs/${id}/events?after=${INT32_MAX}`);
    expect(r.status).toBe(200);
    expect(r.body!.data).toEqual([]);
    expect(r.body!.last_event_sequence).toBe(last);
    expect((await call(h, 'GET', `/api/v2/runs/${id}/events?cursor=${INT32_MAX}`)).status).toBe(200);
  });

  it('rejects forged page cursors holding out-of-range numbers or non-timestamps with 422', async () => {
    const forged = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const [path, cursor] of [
      [`/api/v2/runs/${id}/items`, forged(2 ** 40)],
      [`/api/v2/runs/${id}/results`, forged(2 ** 31)],
      ['/api/v2/runs', forged(['not a date', id])],
      ['/api/v2/runs', forged(['2026-01-01T00:00:00.000Z', 'a\u0000b'])],
    ]) {
      const r = await call(h, 'GET', `${path}?cursor=${cursor}`);
      expect(r.status, path).toBe(422);
      expect(issuePaths(r.body), path).toContain('cursor');
    }
  });
});

describe('ids are checked by format', () => {
  it('answers 404 or 422, never 500, for a NUL byte in a run id', async () => {
    for (const sub of ['', '/events', '/items', '/results', '/events/stream']) {
      const r = await call(h, 'GET', `/api/v2/runs/a%00b${sub}`);
      expect([404, 422], sub).toContain(r.status);
      expect(r.body!.error.code).toMatch(/not_found|validation_error/);
    }
    expect([404, 422]).toContain((await call(h, 'POST', '/api/v2/runs/a%00b:cancel')).status);
  });

  it('answers 404 for a well-formed id of no run and for ids of another shape', async () => {
    for (const bad of ['run_' + '0'.repeat(32), 'run_x', '..', 'RUN_' + 'a'.repeat(32)])
      expect((await call(h, 'GET', `/api/v2/runs/${encodeURIComponent(bad)}`)).status, bad).toBe(404);
  });

  it('refuses a NUL byte inside a JSON body with 422 naming its path', async () => {
    const doc = batchDoc(1, 1, { metadata: { note: 'a\u0000b' } });
    const r = await submit(h, doc, 'nul-key');
    expect(r.status).toBe(422);
    expect(issuePaths(r.body)).toContain('metadata');
  });
});

describe('the event stream', () => {
  it('answers an error status, not a 200 with an empty stream, when the database fails', async () => {
    // PostgreSQL cannot be made to fail one query on demand; this repository delegates to the real
    // one and fails reading events only, the fault the out-of-range `after` used to cause.
    const failing = {
      ...h.store.runs,
      events: () => Promise.reject(new Error('value "2147483648" is out of range for type integer')),
    };
    const runs = createRunsService({
      runs: failing,
      libraries: staticRegistry([h.lib]),
      objects: createLocalObjectStore(h.dataDir),
      workflows: undefined as never,
      taskQueuePrefix: h.prefix,
    });
    const app = await buildApp({
      log: createLogger({ level: 'silent' }),
      accounts: h.store.accounts,
      search: undefined as never,
      health: [],
      v2: { runs } as never,
    });
    try {
      const res = await app.inject({
        url: `/api/v2/runs/${id}/events/stream`,
        headers: { 'x-api-key': h.keys.alice },
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(500);
      expect(res.headers['content-type']).toMatch(/json/);
    } finally {
      await app.close();
    }
  });
});
