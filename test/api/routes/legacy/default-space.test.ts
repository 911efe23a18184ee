// The default database is a synthon space (bundled.json `default`): what a request without db_names
// searches, for each kind of operation (test/api/routes/legacy/spaces.test.ts covers named spaces).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReferenceCatalog } from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';
import { buildSpace } from '../../../../engine/synthons/build-space.ts';

const SOURCES = new URL('../../../../catalogs/spaces/sources/', import.meta.url).pathname;
let h: ApiHarness;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'api-default-space-'));
  const out = join(root, 'idorsia');
  await buildSpace({ input: join(SOURCES, 'idorsia_toy_space_a.txt'), out, id: 'idorsia' });
  const cat = await buildReferenceCatalog({ id: 'refcat', take: (_m, i) => i < 50 });
  h = await startApiHarness([cat.catalog], { spaceDirs: [out], defaultSpace: 'idorsia', analysis: true });
});
afterAll(async () => {
  await h?.close();
  await rm(root, { recursive: true, force: true });
});

const get = (url: string) => h.app.inject({ method: 'GET', url, headers: { 'X-API-Key': h.key } });

describe('a synthon space as the default database', () => {
  it('is marked default in /available_databases_full', async () => {
    const full = (await get('/available_databases_full')).json();
    expect(full.idorsia).toMatchObject({ kind: 'synthon', default: true });
    expect(full.refcat.default).toBe(false);
  });

  it('/molsearch without db_names searches it for morgan and synthongpt', async () => {
    for (const t of ['morgan', 'synthongpt']) {
      const res = await get(`/molsearch?search_input=CC(=O)Nc1ccccc1&search_type=${t}&n_neighbors=5`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.search_info.db_names).toEqual(['idorsia']);
      expect(body.neighbors).toHaveLength(5);
      expect(body.neighbors.every((n: { database: string }) => n.database === 'idorsia')).toBe(true);
    }
  });

  it('operations over catalog rows default to the largest catalog instead of failing on the space', async () => {
    const res = await get('/database_similarity?search_input=CCO');
    expect(res.statusCode).toBe(200);
    expect(res.json().db_names).toEqual(['refcat']);
  });

  it('3D search types without db_names do not fall on the space (it serves no 3D)', async () => {
    // No 3D service in this harness: the answer is about 3D, never "not available for idorsia".
    const res = await get('/molsearch?search_input=CCO&search_type=espsim_shape');
    expect(JSON.stringify(res.json())).not.toMatch(/not available for database idorsia/);
  });
});
