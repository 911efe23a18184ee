import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRDKit } from '../../../../engine/chem/index.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';
import { buildReferenceCatalog } from '../../../support/fixture-catalog.ts';

let h: ApiHarness;
beforeAll(async () => {
  const a = await buildReferenceCatalog({ id: 'refcat', take: (_m, i) => i < 20 });
  h = await startApiHarness([a.catalog], { analysis: true, tier: 'academia' });
});
afterAll(async () => h?.close());

const get = (url: string, key: string | null = h.key) =>
  h.app.inject({ method: 'GET', url, headers: key ? { 'X-API-Key': key } : {} });

describe('GET /smarts_patterns', () => {
  it("lists RDKit's 39 functional groups with stable ids, every SMARTS parsed by RDKit", async () => {
    const res = await get('/smarts_patterns');
    expect(res.statusCode).toBe(200);
    const list = res.json() as { id: string; label: string; group: string; smarts: string }[];
    expect(list).toHaveLength(39);
    expect(list[0]).toEqual({
      id: 'fg_001',
      group: '-NC(=O)CH3',
      label: 'methyl amide',
      smarts: '*-[N;D2]-[C;D3](=O)-[C;D1;H3]',
    });
    expect(list[1]).toMatchObject({ label: 'carboxylic acids', smarts: '*-C(=O)[O;D1]' });
    expect(new Set(list.map((p) => p.id)).size).toBe(39);
    const rd = await getRDKit();
    for (const p of list) {
      const q = rd.get_qmol(p.smarts);
      expect(q?.is_valid(), p.smarts).toBe(true);
      q?.delete();
    }
  });
});

describe('GET /license_key', () => {
  it('answers a stable key derived from the installation id, MIT, and the caller tier', async () => {
    const a = (await get('/license_key')).json();
    const b = (await get('/license_key')).json();
    expect(a).toEqual(b);
    expect(a.license_key).toMatch(/^msl_[0-9a-f]{32}$/);
    expect(a).toMatchObject({ license: 'MIT', licensed: true, expires_at: null, account_type: 'academia' });
    expect(a.license_key).not.toContain(h.key.slice(3, 12));
  });

  it('needs a key and counts against the daily budget', async () => {
    expect((await get('/license_key', null)).statusCode).toBe(401);
    const before = (await get('/rate_limit_status')).json();
    await get('/license_key');
    const after = (await get('/rate_limit_status')).json();
    expect(after.used).toBe(before.used + 2);
  });
});

describe('the OpenAPI document', () => {
  it('lists every analysis operation with its query parameters and an example answer', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const routes: Record<string, string> = {
      '/molsearch_array': 'get',
      '/molsearch_embedding': 'post',
      '/similarity': 'get',
      '/batch_similarity': 'get',
      '/similarity_matrix': 'get',
      '/database_similarity': 'get',
      '/embeddings': 'get',
      '/centroid_embeddings': 'get',
      '/embeddings_file': 'get',
      '/cluster': 'get',
      '/nearest_cluster': 'get',
      '/visualize': 'get',
      '/visualize_file': 'get',
      '/histograms': 'get',
      '/property_histograms': 'get',
      '/smarts_patterns': 'get',
      '/license_key': 'get',
      '/analysis_result': 'get',
    };
    for (const [path, method] of Object.entries(routes)) {
      const op = doc.paths[path]?.[method];
      expect(op, path).toBeDefined();
      // @fastify/swagger moves a schema's `examples` to the media type's `example`
      const media = op.responses['200'].content['application/json'];
      expect(media.example ?? media.examples ?? media.schema.examples, `${path} example`).toBeDefined();
      if (path !== '/smarts_patterns' && path !== '/license_key')
        expect(op.parameters.length, `${path} parameters`).toBeGreaterThan(0);
    }
    expect(doc.paths['/visualise'].get).toBeDefined();
  });
});
