import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type LegacyJobServices } from '../../../../api/app.ts';
import { createCatalogSearchService } from '../../../../api/services/catalog-search.ts';
import { createFileService } from '../../../../api/services/jobs-files.ts';
import { createSearchPool, type SearchPool } from '../../../../engine/search/index.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { createLocalObjectStore } from '../../../../platform/object-store/index.ts';
import { openStore, type Store } from '../../../../store/index.ts';
import { buildReferenceCatalog } from '../../../support/fixture-catalog.ts';

// The real app, PGlite, a local object store and the real search over the RDKit reference
// catalog; the other legacy job services are not reached by these requests.
let app: FastifyInstance;
let store: Store;
let pool: SearchPool;
let dir: string;
let key: string;
beforeAll(async () => {
  const log = createLogger({ level: 'warn', pretty: false });
  dir = await mkdtemp(join(tmpdir(), 'search-file-'));
  store = await openStore({ pgliteDir: 'memory://', tierLimits: { premium: 100_000 } }, log);
  const { catalog } = await buildReferenceCatalog({ id: 'refcat_sf' });
  pool = createSearchPool({ threads: 1, log });
  await pool.loadCatalog(catalog);
  const search = await createCatalogSearchService({ catalogs: [catalog], pool, log });
  const files = createFileService({ uploads: store.uploads, objects: createLocalObjectStore(dir), search });
  app = await buildApp({
    log,
    accounts: store.accounts,
    search,
    legacyJobs: { files } as unknown as LegacyJobServices,
    health: [{ name: 'catalogs', check: async () => {} }],
  });
  key = (await store.accounts.createApiKey({ user: 'sf', tier: 'premium' })).key;
  const up = await app.inject({
    method: 'POST',
    url: '/upload_file?path=in/q.csv',
    headers: { 'X-API-Key': key, 'content-type': 'text/csv' },
    payload: 'SMILES\nCCO\nc1ccccc1\n',
  });
  expect(up.statusCode).toBe(200);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await pool?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const searchFile = (n: number) =>
  app.inject({
    method: 'GET',
    url: `/search_file?input_file=in/q.csv&search_type=morgan&db_names=refcat_sf&n_neighbors=${n}`,
    headers: { 'X-API-Key': key },
  });

describe('GET /search_file n_neighbors', () => {
  it('caps n_neighbors above 100 at 100 and says so in remarks, like /molsearch', async () => {
    const res = await searchFile(10_000);
    expect(res.statusCode).toBe(200);
    const body = res.json<{ remarks: string; results: { neighbors: unknown[] }[] }>();
    expect(body.remarks).toMatch(/n_neighbors 10000 capped at 100/);
    expect(body.results).toHaveLength(2);
    for (const r of body.results) {
      expect(r.neighbors.length).toBeGreaterThan(0);
      expect(r.neighbors.length).toBeLessThanOrEqual(100);
    }
  });

  it('answers an empty remarks string below the cap, and a 422 naming n_neighbors below 1', async () => {
    const ok = await searchFile(3);
    expect(ok.statusCode).toBe(200);
    const body = ok.json<{ remarks: string; results: { neighbors: unknown[] }[] }>();
    expect(body.remarks).toBe('');
    expect(body.results[0].neighbors).toHaveLength(3);
    const bad = await searchFile(0);
    expect(bad.statusCode).toBe(422);
    expect(bad.json<{ detail: { loc: string[] }[] }>().detail[0].loc).toEqual(['query', 'n_neighbors']);
  });
});
