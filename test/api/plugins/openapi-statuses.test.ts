import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../api/app.ts';
import { createLogger } from '../../../platform/logger.ts';

// Every route group registered (their services are never called: only the document is read).
const UNUSED = {} as never;
let app: FastifyInstance;
let paths: Record<string, Record<string, { responses: Record<string, any> }>>;
beforeAll(async () => {
  app = await buildApp({
    log: createLogger({ level: 'silent' }),
    accounts: UNUSED,
    search: { databases: () => [], defaultDatabase: () => 'x' } as never,
    health: [],
    legacyJobs: { jobs: UNUSED, synthonJobs: UNUSED, downloads: UNUSED, files: UNUSED },
    admet: UNUSED,
    v2: { search: UNUSED, selections: UNUSED, runs: UNUSED },
  });
  await app.ready();
  paths = (app.swagger() as unknown as { paths: typeof paths }).paths;
});
afterAll(() => app?.close());

const operations = () =>
  Object.entries(paths).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => ({ path, m, op })));

describe('the OpenAPI document', () => {
  it('lists 401, 404, 422 and 429 on every legacy route and 400, 413, 414 on every v2 route', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(40);
    for (const { path, m, op } of ops) {
      const codes = Object.keys(op.responses);
      const want = path.startsWith('/api/v2')
        ? ['400', '401', '404', '413', '414', '422', '429']
        : ['401', '404', '422', '429'];
      expect(codes, `${m} ${path}`).toEqual(expect.arrayContaining(want));
      expect(
        codes.some((c) => c.startsWith('2')),
        `${m} ${path}`,
      ).toBe(true);
    }
  });

  it('describes the event stream as text/event-stream', () => {
    const ok = paths['/api/v2/runs/{id}/events/stream'].get.responses['200'];
    expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
  });

  it('documents each generation’s error body', () => {
    const legacy = paths['/molsearch'].get.responses['422'].content['application/json'].schema;
    expect(Object.keys(legacy.properties)).toEqual(['detail']);
    const v2 = paths['/api/v2/search'].post.responses['422'].content['application/json'].schema;
    expect(Object.keys(v2.properties)).toEqual(['error']);
  });
});
