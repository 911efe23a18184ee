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

describe('POST /upload_file multipart/form-data', () => {
  // The envelope a form client sends (as curl -F file=@in.csv), built by the platform's FormData.
  async function form(parts: Array<[string, string, string?]>) {
    const fd = new FormData();
    for (const [name, text, filename] of parts)
      if (filename) fd.append(name, new Blob([text], { type: 'text/csv' }), filename);
      else fd.append(name, text);
    const req = new Request('http://x/', { method: 'POST', body: fd });
    return { type: req.headers.get('content-type')!, body: Buffer.from(await req.arrayBuffer()) };
  }
  const upload = (path: string, f: { type: string; body: Buffer }) =>
    app.inject({
      method: 'POST',
      url: `/upload_file?path=${path}`,
      headers: { 'X-API-Key': key, 'content-type': f.type },
      payload: f.body,
    });

  it('stores only the file part, so /search_file reads its rows', async () => {
    const text = 'SMILES\nCCO\nc1ccccc1\nCCN\n';
    const up = await upload(
      'in/m.csv',
      await form([
        ['note', 'x'],
        ['file', text, 'in.csv'],
      ]),
    );
    expect(up.statusCode).toBe(200);
    expect(up.json().bytes).toBe(Buffer.byteLength(text));
    const res = await app.inject({
      method: 'GET',
      url: '/search_file?input_file=in/m.csv&search_type=morgan&db_names=refcat_sf&n_neighbors=3',
      headers: { 'X-API-Key': key },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toHaveLength(3);
  });

  it('answers 422 naming body without exactly one file part', async () => {
    for (const f of [
      await form([['note', 'x']]),
      await form([
        ['a', 'C', 'a.csv'],
        ['b', 'C', 'b.csv'],
      ]),
    ]) {
      const res = await upload('in/bad.csv', f);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body']);
    }
  });
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

describe('the file area: /user_files and /user_file', () => {
  const get = (url: string, k: string = key) =>
    app.inject({ method: 'GET', url, headers: { 'X-API-Key': k } });

  it('lists what /search_file wrote (kind output) after the uploads, and serves both by path', async () => {
    // A user trial's results were written to the area, yet no route listed or served them.
    const s = await get(
      '/search_file?input_file=in/q.csv&search_type=morgan&db_names=refcat_sf&n_neighbors=2&output_file=out/r.csv',
    );
    expect(s.statusCode, s.body).toBe(200);
    const files = (await get('/user_files')).json() as Array<{ path: string; kind: string; bytes: number }>;
    const upload = files.find((f) => f.path === 'in/q.csv');
    const output = files.find((f) => f.path === 'out/r.csv');
    expect(upload).toMatchObject({ kind: 'upload', bytes: 20 });
    expect(output).toMatchObject({ kind: 'output', uploaded_at: null });
    expect(files.indexOf(upload!)).toBeLessThan(files.indexOf(output!));
    const dl = await get('/user_file?path=out/r.csv');
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-disposition']).toBe('attachment; filename="r.csv"');
    expect(dl.body.split('\n')[0]).toMatch(/^query_smiles,rank,smiles,id/);
    expect(dl.rawPayload.length).toBe(output!.bytes);
    expect((await get('/user_file?path=in/q.csv')).body).toBe('SMILES\nCCO\nc1ccccc1\n');
  });

  it('answers 404 for a path not in the area, 422 naming path for one escaping it, and only your own', async () => {
    expect((await get('/user_file?path=out/none.csv')).statusCode).toBe(404);
    const bad = await get('/user_file?path=../x.csv');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['query', 'path']);
    const other = (await store.accounts.createApiKey({ user: 'sf2', tier: 'premium' })).key;
    expect((await get('/user_file?path=in/q.csv', other)).statusCode).toBe(404);
    expect((await get('/user_files', other)).json()).toEqual([]);
  });
});
