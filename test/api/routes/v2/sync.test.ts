import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { call, selectionDoc, startHarness, type Harness } from './harness.ts';

// Python RDKit reference values (scripts/reference/v2_selection_reference.py).
const REF = JSON.parse(
  readFileSync(new URL('../../../fixtures/v2/selection-reference.json', import.meta.url), 'utf8'),
);
const ASPIRIN = 'CC(=O)Oc1ccccc1C(=O)O';
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h?.close());

describe('v2 common behaviour', () => {
  it('answers 401 in the v2 envelope without a key, with x-request-id', async () => {
    const r = await call(h, 'GET', '/api/v2/catalog', { key: null });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      error: {
        code: 'unauthorized',
        message: expect.any(String),
        request_id: r.headers['x-request-id'],
        retryable: false,
      },
    });
  });

  it('documents every v2 route in the OpenAPI document', async () => {
    const r = await call(h, 'GET', '/openapi.json', { key: null });
    expect(r.status).toBe(200);
    const paths = Object.keys(r.body!.paths).filter((p) => p.startsWith('/api/v2'));
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/v2/selections:validate',
        '/api/v2/runs',
        '/api/v2/runs/{id}',
        '/api/v2/runs/{id}/events/stream',
        '/api/v2/search_substructure',
        '/api/v2/sample',
      ]),
    );
    expect(paths.some((p) => p.endsWith(':cancel'))).toBe(true);
  });

  it('documents a body field with a default as optional, and still fills the default in', async () => {
    const doc = (await call(h, 'GET', '/openapi.json', { key: null })).body!;
    const sub = doc.paths['/api/v2/search_substructure'].post.requestBody.content['application/json'].schema;
    // limit, timeout_seconds, search_mode and include_synthons have defaults: a client may leave them out.
    expect(sub.required).toEqual(['database_id']);
    expect(sub.properties.limit.default).toBe(50);
    const r = await call(h, 'POST', '/api/v2/search_substructure', {
      body: { database_id: 'drugs', query: { format: 'smarts', value: 'c1ccccc1' } },
    });
    expect(r.status).toBe(200);
  });

  it('documents the run and selection documents as real schemas, and still answers field-precise 422s', async () => {
    const doc = (await call(h, 'GET', '/openapi.json', { key: null })).body!;
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
    const run = body('/api/v2/runs');
    expect(
      run.properties.kind.anyOf.map((k: { const?: string; enum?: string[] }) => k.const ?? k.enum?.[0]),
    ).toEqual(['selection', 'selection_batch']);
    expect(run.required).toEqual(['kind']);
    for (const path of ['/api/v2/selections', '/api/v2/selections:validate', '/api/v2/selections:estimate']) {
      const sel = body(path);
      expect(sel.required).toEqual(['database', 'strategy']);
      expect(sel.additionalProperties).toBe(false);
      expect(Object.keys(sel.properties)).toContain('constraints');
    }
    // The service validates the body: one issue per offending field, with its JSON path.
    const bad = await call(h, 'POST', '/api/v2/selections:validate', {
      body: selectionDoc(ASPIRIN, 5, { database: { database_id: 'drugs', shard: 1 }, colour: 'blue' }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body!.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      '$.colour',
      '$.database.shard',
    ]);
  });

  it('lists the catalog with capabilities and pricing availability', async () => {
    const r = await call(h, 'GET', '/api/v2/catalog');
    expect(r.status).toBe(200);
    expect(r.body!.libraries).toEqual([
      expect.objectContaining({
        database_id: 'drugs',
        product_count: 1203,
        capabilities: expect.objectContaining({
          search: true,
          search_cheese: [],
          search_substructure: true,
          sample: true,
          selections: true,
        }),
        // No prices, so no price constraint: a max_price selection here is capability_unavailable.
        pricing: expect.objectContaining({ available: false, currency: null, constraints: [] }),
      }),
    ]);
  });
});

describe('POST /api/v2/search', () => {
  it('returns the RDKit top hits in the common envelope', async () => {
    const r = await call(h, 'POST', '/api/v2/search', {
      body: { query_smiles: ASPIRIN, database_id: 'drugs', limit: 10, include_synthons: false },
    });
    expect(r.status).toBe(200);
    expect(r.body!.results.map((x: { product_id: string }) => x.product_id)).toEqual(
      REF.knn.aspirin.map((x: { id: string }) => x.id),
    );
    expect(r.body!.results[0]).toMatchObject({
      rank: 1,
      price: null,
      reaction_id: null,
      metric: 'rdkit.ecfp4_tanimoto',
      score: 1,
    });
    expect(r.body).toMatchObject({
      database_id: 'drugs',
      database_release: '2024.1',
      metric: 'rdkit.ecfp4_tanimoto',
      counts: { returned: 10 },
      warnings: [],
      request_id: r.headers['x-request-id'],
    });
    expect(r.body!.timing_ms.total).toBeGreaterThanOrEqual(0);
  });

  it('answers an empty or broken JSON body with a 422 whose details name the body', async () => {
    for (const payload of ['', '{"query_smiles": ']) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v2/search',
        headers: { 'x-api-key': h.keys.alice, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(422);
      const error = res.json().error;
      expect(error.code).toBe('validation_error');
      expect(error.details[0].path).toBe('$');
    }
  });

  it('rejects a limit above 200 naming the field', async () => {
    const r = await call(h, 'POST', '/api/v2/search', {
      body: { query_smiles: ASPIRIN, database_id: 'drugs', limit: 201 },
    });
    expect(r.status).toBe(422);
    expect(r.body!.error.code).toBe('validation_error');
    expect(r.body!.error.message).toContain('$.limit');
  });

  it('answers invalid_smiles for an unparsable query', async () => {
    const r = await call(h, 'POST', '/api/v2/search', {
      body: { query_smiles: 'C1CC(', database_id: 'drugs' },
    });
    expect(r.status).toBe(422);
    expect(r.body!.error.code).toBe('invalid_smiles');
  });
});

describe('POST /api/v2/search_cheese', () => {
  it('validates, then answers capability_unavailable', async () => {
    const bad = await call(h, 'POST', '/api/v2/search_cheese', {
      body: { query_smiles: ASPIRIN, database_id: 'drugs', scorer: 'volume' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body!.error.code).toBe('validation_error');
    const r = await call(h, 'POST', '/api/v2/search_cheese', {
      body: { query_smiles: ASPIRIN, database_id: 'drugs', scorer: 'shape', shortlist_multiplier: 5 },
    });
    expect(r.status).toBe(422);
    expect(r.body!.error).toMatchObject({ code: 'capability_unavailable', retryable: false });
  });
});

describe('substructure', () => {
  const smarts = 'C(F)(F)F';
  for (const path of ['/api/v2/search_substructure', '/api/v2/substructure']) {
    it(`${path} returns matches with atom and bond indices as RDKit`, async () => {
      const r = await call(h, 'POST', path, {
        body: {
          query: { format: 'smarts', value: smarts },
          database_id: 'drugs',
          limit: 200,
          timeout_seconds: 30,
        },
      });
      expect(r.status).toBe(200);
      expect(r.body!.timed_out).toBe(false);
      expect(r.body!.counts.returned).toBe(REF.substructure[smarts].count);
      const first = r
        .body!.results.slice(0, 5)
        .map((x: { product_id: string; matched_atom_indices: number[] }) => ({
          id: x.product_id,
          atoms: x.matched_atom_indices,
        }));
      expect(first).toEqual(REF.substructure[smarts].first);
      expect(r.body!.results[0].matched_bond_indices.length).toBe(3);
      expect(r.body!.results[0].price).toBeNull();
    });
  }

  it('rejects an unparsable SMARTS with invalid_smiles', async () => {
    const r = await call(h, 'POST', '/api/v2/search_substructure', {
      body: { query: { format: 'smarts', value: 'C1C[' }, database_id: 'drugs' },
    });
    expect(r.status).toBe(422);
    expect(r.body!.error.code).toBe('invalid_smiles');
  });
});

describe('POST /api/v2/sample', () => {
  it('is reproducible for a seed and returns a chosen seed otherwise', async () => {
    const a = await call(h, 'POST', '/api/v2/sample', {
      body: { database_id: 'drugs', count: 20, seed: 12345 },
    });
    const b = await call(h, 'POST', '/api/v2/sample', {
      body: { database_id: 'drugs', count: 20, seed: 12345 },
    });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      seed: 12345,
      requested: 20,
      returned: 20,
      sampling_method: 'route_product_tuple',
      sampling_version: '1', // a string: the released v2 SDK rejects an integer
      database_release: '2024.1',
    });
    expect(b.body!.results).toEqual(a.body!.results);
    expect(new Set(a.body!.results.map((x: { product_id: string }) => x.product_id)).size).toBe(20);
    const c = await call(h, 'POST', '/api/v2/sample', { body: { database_id: 'drugs', count: 20 } });
    expect(Number.isInteger(c.body!.seed)).toBe(true);
    const d = await call(h, 'POST', '/api/v2/sample', {
      body: { database_id: 'drugs', count: 20, seed: c.body!.seed },
    });
    expect(d.body!.results).toEqual(c.body!.results);
  });

  it('takes the keys the released SDK sends, and sampling_method route_product_tuple', async () => {
    // deepmedchem 0.4.0b5 Client.sample: {database_id, count, include_synthons, seed?}.
    const sdk = { database_id: 'drugs', count: 3, include_synthons: false, seed: 5 };
    const a = await call(h, 'POST', '/api/v2/sample', { body: sdk });
    const b = await call(h, 'POST', '/api/v2/sample', {
      body: { ...sdk, sampling_method: 'route_product_tuple' },
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body!.results).toEqual(a.body!.results);
  });

  it('refuses an unknown key and any other sampling_method with a 422 naming the field', async () => {
    const bogus = await call(h, 'POST', '/api/v2/sample', {
      body: { database_id: 'drugs', count: 3, bogus: 1 },
    });
    expect(bogus.status).toBe(422);
    expect(bogus.body!.error.code).toBe('validation_error');
    expect(bogus.body!.error.message).toContain('bogus');
    const uniform = await call(h, 'POST', '/api/v2/sample', {
      body: { database_id: 'drugs', count: 3, sampling_method: 'uniform' },
    });
    expect(uniform.status).toBe(422);
    expect(uniform.body!.error.message).toContain('sampling_method');
    expect(uniform.body!.error.message).toContain('route_product_tuple');
  });
});

describe('selections', () => {
  it('validates with both the escaped colon route and reports constraint execution', async () => {
    const doc = selectionDoc(ASPIRIN, 5, {
      constraints: {
        presets: [{ preset_id: 'lipinski-ro5' }],
        structures: { all: [{ id: 'ring', query: { format: 'smarts', value: 'c1ccccc1' } }] },
      },
    });
    const r = await call(h, 'POST', '/api/v2/selections:validate', { body: doc });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      valid: true,
      selection_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(r.body!.constraint_execution).toEqual([
      expect.objectContaining({ path: '$.constraints.presets[0]', status: 'exact_pushdown' }),
      expect.objectContaining({ path: '$.constraints.structures.all[0]', status: 'exact_postfilter' }),
    ]);
    expect(r.body!.normalized_selection.constraints.presets[0].version).toBe('1');
  });

  it('rejects unknown fields naming the JSON path', async () => {
    const r = await call(h, 'POST', '/api/v2/selections:validate', {
      body: { ...selectionDoc(ASPIRIN), portfolio: { limit: 5, colour: 'blue' } },
    });
    expect(r.status).toBe(422);
    expect(r.body!.error.code).toBe('validation_error');
    expect(r.body!.error.message).toContain('$.portfolio.colour');
    expect(r.body!.error.details[0].path).toBe('$.portfolio.colour');
  });

  it('estimates the execution tier and work', async () => {
    const r = await call(h, 'POST', '/api/v2/selections:estimate', { body: selectionDoc(ASPIRIN, 100) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      execution_tier: 'synchronous',
      work: { catalog_rows: 1203, shortlist: 1000 },
    });
  });

  it('executes a selection synchronously', async () => {
    const r = await call(h, 'POST', '/api/v2/selections', {
      body: selectionDoc(ASPIRIN, 5, { constraints: { presets: [{ preset_id: 'lipinski-ro5' }] } }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: 'selection',
      status: 'completed',
      database_release: '2024.1',
      counts: { returned: 5 },
    });
    expect(r.body!.results.map((x: { product_id: string }) => x.product_id)).toEqual(
      REF.lipinski_knn.aspirin.slice(0, 5).map((x: { id: string }) => x.id),
    );
  });

  it('a price bound on a catalog without prices: validate warns, the selection is a 422 naming it', async () => {
    // What deepmedchem 0.4.0b5 sends for max_price=100 (Selection.max_price).
    const price = { max: 100, currency: 'USD', amount_mg: 1, ship_to: 'US', missing: 'reject' };
    const doc = selectionDoc(ASPIRIN, 5, { constraints: { price } });
    const v = await call(h, 'POST', '/api/v2/selections:validate', { body: doc });
    expect(v.status).toBe(200);
    expect(v.body!.normalized_selection.constraints.price).toEqual(price);
    expect(v.body!.warnings).toEqual([
      { code: 'capability_unavailable', message: expect.stringContaining('$.constraints.price') },
    ]);
    const r = await call(h, 'POST', '/api/v2/selections', { body: doc });
    expect(r.status).toBe(422);
    expect(r.body!.error).toMatchObject({
      code: 'capability_unavailable',
      message: expect.stringContaining('drugs lists no prices'),
    });
  });

  it('answers capability_unavailable for a shape objective', async () => {
    const r = await call(h, 'POST', '/api/v2/selections', {
      body: {
        ...selectionDoc(ASPIRIN),
        objectives: [
          { type: 'similarity', direction: 'maximize', metric_id: 'cheese.shape', reference_id: 'q' },
        ],
      },
    });
    expect(r.status).toBe(422);
    expect(r.body!.error.code).toBe('capability_unavailable');
  });
});
