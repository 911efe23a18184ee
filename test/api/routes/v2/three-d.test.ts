import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../workflows/support/stack.ts';
import { ASPIRIN, startThreeDStack, type ThreeDStack } from '../../../support/three-d-stack.ts';

// POST /api/v2/search_cheese on catalogs, over a 21-row catalog made 3D-ready by its real 3D
// stage and a catalog without 3D data. The exact pair scores are checked against espsim and RDKit
// fixtures in test/engine/shape; here the reranking result and its agreement with /molsearch.
const DB = 'cheese3d';
let t: ThreeDStack;
type Hit = { rank: number; product_id: string; score: number; proposal_score: number; metric: string } & {
  scores: { shape: number | null; esp: number | null; morgan: number };
};

beforeAll(async () => {
  t = await startThreeDStack(DB, 20);
}, 600_000);
afterAll(() => t?.stop());

const cheese = (body: Record<string, unknown>) => call(t.s, 'POST', '/api/v2/search_cheese', t.s.keyA, body);

describe('POST /api/v2/search_cheese on a catalog', () => {
  it('lists morgan, shape and esp for the 3D-ready catalog, morgan only for the other', async () => {
    const r = await call(t.s, 'GET', '/api/v2/catalog', t.s.keyA);
    const caps = Object.fromEntries(
      r.body.libraries.map((l: { database_id: string; capabilities: { search_cheese: string[] } }) => [
        l.database_id,
        l.capabilities.search_cheese,
      ]),
    );
    expect(caps[DB]).toEqual(['morgan', 'shape', 'esp']);
    expect(caps.flat).toEqual(['morgan']);
  });

  it('proposes limit × shortlist_multiplier rows, reranks them by shape, and answers the reranking result', async () => {
    const r = await cheese({
      query_smiles: ASPIRIN,
      database_id: DB,
      scorer: 'shape',
      limit: 5,
      shortlist_multiplier: 2,
    });
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({
      database_id: DB,
      scorer: 'shape',
      metric: 'cheese.shape',
      shortlist_multiplier: 2,
      effective_shortlist: 10,
      engine_version: expect.any(String),
      model_version: expect.stringMatching(/usrcat/),
      query_smiles: ASPIRIN,
      counts: { proposed: 10, assembled: 10, returned: 5, invalid: 0, duplicate_products: 0 },
      warnings: [],
    });
    for (const k of ['query', 'proposal', 'assembly_and_scoring', 'total'])
      expect(r.body.timing_ms[k]).toBeGreaterThanOrEqual(0);
    const hits: Hit[] = r.body.results;
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(hits[0]).toMatchObject({ product_id: 'ASPIRIN', metric: 'cheese.shape' });
    expect(hits[0].score).toBeCloseTo(1, 3);
    expect(hits.every((h) => h.score === h.scores.shape)).toBe(true);
    const s = hits.map((h) => h.score);
    expect([...s].sort((a, b) => b - a)).toEqual(s);
    // The same two stages as /molsearch: with every row proposed (5 × 20 ≥ 21 rows, /molsearch's
    // fast shortlist is 100), the same rows and shape scores.
    const all = await cheese({
      query_smiles: ASPIRIN,
      database_id: DB,
      scorer: 'shape',
      limit: 5,
      shortlist_multiplier: 20,
    });
    expect(all.body.effective_shortlist).toBe(21);
    const legacy = await call(
      t.s,
      'GET',
      `/molsearch_simple?search_input=${encodeURIComponent(ASPIRIN)}&db_names=${DB}&search_type=espsim_shape&n_neighbors=5`,
      t.s.keyA,
    );
    expect(legacy.status, legacy.raw).toBe(200);
    expect(legacy.body.neighbors.map((n: { id: string; Shapesim: number }) => [n.id, n.Shapesim])).toEqual(
      all.body.results.map((h: Hit) => [h.product_id, h.score]),
    );
  });

  it('ranks by the ESP score with scorer esp', async () => {
    const r = await cheese({ query_smiles: ASPIRIN, database_id: DB, scorer: 'esp', limit: 4 });
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({ metric: 'cheese.electrostatic', shortlist_multiplier: 10 });
    expect(r.body.counts.proposed).toBe(21); // 4 × 10 asked, 21 rows exist
    const hits: Hit[] = r.body.results;
    expect(hits[0].product_id).toBe('ASPIRIN');
    expect(hits.every((h) => h.score === h.scores.esp)).toBe(true);
    // Scores are clamped where computed: the self-match is 1 at most (1.0000000000000049 was served).
    for (const h of hits)
      for (const v of [h.score, h.scores.esp, h.scores.shape]) expect(v).toBeLessThanOrEqual(1);
  });

  it('answers 422 naming query_smiles for a query 3D cannot score: an unsupported element, monatomic ions only', async () => {
    for (const [q, why] of [
      ['[U]', /element\(s\) U not supported in 3D/],
      ['[K+].[Cl-]', /only monatomic ions/],
    ] as const) {
      const r = await cheese({ query_smiles: q, database_id: DB, scorer: 'esp' });
      expect(r.status, r.raw).toBe(422);
      expect(r.body.error.message).toMatch(why);
      expect(JSON.stringify(r.body)).toContain('query_smiles');
    }
  });

  it('reranks by Morgan Tanimoto with scorer morgan: the rows and scores of /api/v2/search, 3D data or not', async () => {
    for (const db of [DB, 'flat']) {
      const r = await cheese({ query_smiles: ASPIRIN, database_id: db, scorer: 'morgan', limit: 5 });
      expect(r.status, r.raw).toBe(200);
      expect(r.body.metric).toBe('rdkit.ecfp4_tanimoto');
      const plain = await call(t.s, 'POST', '/api/v2/search', t.s.keyA, {
        query_smiles: ASPIRIN,
        database_id: db,
        limit: 5,
      });
      expect(r.body.results.map((h: Hit) => [h.product_id, h.score])).toEqual(
        plain.body.results.map((h: Hit) => [h.product_id, h.score]),
      );
    }
  });

  it('answers 422 naming database_id for shape on a catalog without 3D data, and on bad scorer or SMILES', async () => {
    const flat = await cheese({ query_smiles: ASPIRIN, database_id: 'flat', scorer: 'shape' });
    expect(flat.status).toBe(422);
    expect(flat.body.error.message).toMatch(/not 3D-ready/);
    expect(JSON.stringify(flat.body)).toContain('database_id');
    const scorer = await cheese({ query_smiles: ASPIRIN, database_id: DB, scorer: 'volume' });
    expect(scorer.status).toBe(422);
    const smiles = await cheese({ query_smiles: 'C1CC(', database_id: DB, scorer: 'shape' });
    expect(smiles.status).toBe(422);
    expect(smiles.body.error.code).toBe('invalid_smiles');
    const big = await cheese({ query_smiles: 'C'.repeat(130), database_id: DB, scorer: 'esp' });
    expect(big.status).toBe(422);
    expect(big.body.error.message).toMatch(/too large for 3D/);
  });
});

describe('POST /api/v2/selections with 3D metric ids', () => {
  const selection = (
    objectives: { metric_id: string }[],
    extra: Record<string, unknown> = {},
    db = DB,
  ): Record<string, unknown> => ({
    schema_version: 'molecule-selection/1',
    database: { database_id: db },
    strategy: { type: 'ranked' },
    references: [{ id: 'q', structure: { format: 'smiles', value: ASPIRIN } }],
    objectives: objectives.map((o) => ({
      type: 'similarity',
      direction: 'maximize',
      reference_id: 'q',
      ...o,
    })),
    execution: { shortlist_multiplier: 5 },
    portfolio: { limit: 3 },
    include: ['objective_components'],
    ...extra,
  });
  const post = (path: string, body: Record<string, unknown>) => call(t.s, 'POST', path, t.s.keyA, body);

  it('validates cheese.shape with one warning: run items cannot score it (the synchronous selection can)', async () => {
    const doc = selection([{ metric_id: 'rdkit.ecfp4_tanimoto' }, { metric_id: 'cheese.shape' }]);
    const r = await post('/api/v2/selections:validate', doc);
    expect(r.status, r.raw).toBe(200);
    expect(r.body.warnings).toHaveLength(1);
    expect(r.body.warnings[0].code).toBe('capability_unavailable');
    expect(r.body.warnings[0].message).toContain(
      '$.objectives[1].metric_id: cheese.shape is not scored by run items',
    );
    expect((await post('/api/v2/selections', doc)).status).toBe(200);
  });

  it('refuses a run with a 3D objective up front: estimate not admissible, POST /runs 422 naming the objective', async () => {
    const { references: _refs, ...template } = selection([
      { metric_id: 'rdkit.ecfp4_tanimoto' },
      { metric_id: 'cheese.electrostatic' },
    ]);
    const run = {
      schema_version: 'run/1',
      kind: 'selection_batch',
      selection_template: template,
      items: [{ id: 'x', references: [{ id: 'q', structure: { format: 'smiles', value: ASPIRIN } }] }],
    };
    const field = '$.selection_template.objectives[1].metric_id';
    const estimate = await post('/api/v2/runs:estimate', run);
    expect(estimate.status, estimate.raw).toBe(200);
    expect(estimate.body.admissible).toBe(false);
    expect(estimate.body.reason).toContain(`${field}: cheese.electrostatic is not scored by run items`);
    const created = await t.s.stack.app.inject({
      method: 'POST',
      url: '/api/v2/runs',
      headers: { 'x-api-key': t.s.keyA, 'content-type': 'application/json', 'idempotency-key': 'run-3d' },
      payload: JSON.stringify(run),
    });
    expect(created.statusCode, created.body).toBe(422);
    const error = created.json().error;
    expect(error.code).toBe('capability_unavailable');
    expect(error.details.map((d: { path: string }) => d.path)).toEqual([field]);
    // Nothing was admitted: no run exists to fail its items.
    expect((await call(t.s, 'GET', '/api/v2/runs', t.s.keyA)).body.data).toEqual([]);
  });

  it('ranks by cheese.shape with the scores of search_cheese for the same proposal', async () => {
    const r = await post('/api/v2/selections', selection([{ metric_id: 'cheese.shape' }]));
    expect(r.status, r.raw).toBe(200);
    const c = await cheese({
      query_smiles: ASPIRIN,
      database_id: DB,
      scorer: 'shape',
      limit: 3,
      shortlist_multiplier: 5,
    });
    expect(r.body.results.map((h: { product_id: string; score: number }) => [h.product_id, h.score])).toEqual(
      c.body.results.map((h: Hit) => [h.product_id, h.score]),
    );
    expect(r.body.results[0]).toMatchObject({ product_id: 'ASPIRIN', metric: 'cheese.shape' });
    expect(r.body.execution_plan.candidate_generation).toMatch(/3d_first_stage/);
  });

  it('averages cheese.electrostatic with rdkit.ecfp4_tanimoto, each component the pair score of its endpoint', async () => {
    const r = await post(
      '/api/v2/selections',
      selection([{ metric_id: 'cheese.electrostatic' }, { metric_id: 'rdkit.ecfp4_tanimoto' }]),
    );
    expect(r.status, r.raw).toBe(200);
    const all = await cheese({ query_smiles: ASPIRIN, database_id: DB, scorer: 'esp', limit: 100 });
    const esp = new Map(all.body.results.map((h: Hit) => [h.product_id, h.scores]));
    for (const h of r.body.results as {
      product_id: string;
      score: number;
      metric: string;
      objective_components: Record<string, number>;
    }[]) {
      const s = esp.get(h.product_id) as Hit['scores'];
      expect(h.objective_components).toEqual({ 'cheese.electrostatic:q': s.esp, q: s.morgan });
      expect(h.score).toBeCloseTo((s.esp! + s.morgan) / 2, 12);
      expect(h.metric).toBe('mean_objective');
    }
  });

  it('scores the seeded draw of a sample strategy by cheese.shape: the rows of the ECFP4 sample, the pair scores of search_cheese', async () => {
    const sample = (metric_id: string) =>
      selection([{ metric_id }], {
        strategy: { type: 'sample' },
        execution: { shortlist_multiplier: 2, seed: 7 },
        portfolio: { limit: 4 },
      });
    const ecfp = await post('/api/v2/selections', sample('rdkit.ecfp4_tanimoto'));
    expect(ecfp.status, ecfp.raw).toBe(200);
    const r = await post('/api/v2/selections', sample('cheese.shape'));
    expect(r.status, r.raw).toBe(200);
    type SelHit = { product_id: string; score: number; metric: string };
    const hits = r.body.results as SelHit[];
    expect(hits.map((h) => h.product_id)).toEqual(ecfp.body.results.map((h: SelHit) => h.product_id));
    expect(hits).toHaveLength(4);
    expect(r.body.execution_plan.candidate_generation).toBe('seeded_sample');
    const all = await cheese({ query_smiles: ASPIRIN, database_id: DB, scorer: 'shape', limit: 100 });
    const shape = new Map(all.body.results.map((h: Hit) => [h.product_id, h.scores.shape]));
    for (const h of hits) {
      expect(h.metric).toBe('cheese.shape');
      expect(h.score).toBe(shape.get(h.product_id));
    }
    // A sampled row's shape score differs from its ECFP4 score: the 3D objective really scored it.
    expect(hits.some((h, i) => h.score !== ecfp.body.results[i].score)).toBe(true);
  });

  it('answers 422 for a 3D objective whose reference has an element 3D cannot score', async () => {
    const r = await post(
      '/api/v2/selections',
      selection([{ metric_id: 'cheese.electrostatic' }], {
        references: [{ id: 'q', structure: { format: 'smiles', value: '[U]' } }],
      }),
    );
    expect(r.status, r.raw).toBe(422);
    expect(r.body.error.message).toMatch(/element\(s\) U not supported in 3D/);
  });

  it('answers 422 naming the database when it is not 3D-ready, and 413 past the 3D alignment budget', async () => {
    const flat = await post('/api/v2/selections', selection([{ metric_id: 'cheese.shape' }], {}, 'flat'));
    expect(flat.status).toBe(422);
    expect(flat.body.error.message).toMatch(/database\.database_id.*not 3D-ready/);
    const big = await post(
      '/api/v2/selections',
      selection([{ metric_id: 'cheese.shape' }], {
        execution: { shortlist_multiplier: 11 },
        portfolio: { limit: 200 },
      }),
    );
    expect(big.status).toBe(413);
    expect(big.body.error.message).toMatch(/3D alignments/);
  });
});
