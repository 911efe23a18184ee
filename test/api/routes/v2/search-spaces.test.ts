// v2 search_substructure and search_cheese (scorer morgan) on a synthon space through the real
// routes, the real space pool thread and RDKit; checked against brute force over RDKit's
// enumeration of the Idorsia toy space (test/fixtures/synthons/similarity-reference.json).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReferenceCatalog } from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';
import { buildSpace } from '../../../../engine/synthons/build-space.ts';
import { getRDKit } from '../../../../engine/chem/rdkit.ts';
import { canonicalize } from '../../../../engine/chem/molecule.ts';
import { functionalGroups } from '../../../../engine/filters/functional-groups.ts';
import { sdkWhere } from '../../../support/selection-docs.ts';

const SOURCES = new URL('../../../../catalogs/spaces/sources/', import.meta.url).pathname;
const FIXTURE = new URL('../../../fixtures/synthons/similarity-reference.json', import.meta.url);
// Queries dissimilar to the whole toy space, brute force (scripts/reference/make_synthon_topk_fixture.py).
const DISSIMILAR = new URL('../../../fixtures/synthons/idorsia-dissimilar-reference.json', import.meta.url);
// Two reactions reaching one product, RDKit's products and Tanimotos (scripts/reference/make_two_routes_fixture.py).
const TWO_ROUTES = new URL('../../../fixtures/synthons/two_routes_space.txt', import.meta.url).pathname;
const TWO_ROUTES_REF = new URL('../../../fixtures/synthons/two-routes-reference.json', import.meta.url);
let h: ApiHarness;
let root: string;
let fixture: {
  spaces: Record<string, Array<{ query: string; top: Array<[string, number]> }>>;
  substructure: Record<string, Record<string, string[]>>;
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'v2-space-routes-'));
  fixture = JSON.parse(await readFile(FIXTURE, 'utf8'));
  const out = join(root, 'idorsia');
  await buildSpace({ input: join(SOURCES, 'idorsia_toy_space_a.txt'), out, id: 'idorsia' });
  await buildSpace({ input: join(SOURCES, 'urea_space.txt'), out: join(root, 'urea'), id: 'urea' });
  await buildSpace({ input: TWO_ROUTES, out: join(root, 'tworoutes'), id: 'tworoutes' });
  const cat = await buildReferenceCatalog({ id: 'refcat', take: (_m, i) => i < 20 });
  h = await startApiHarness([cat.catalog], {
    spaceDirs: [out, join(root, 'urea'), join(root, 'tworoutes')],
    v2Spaces: true,
  });
});
afterAll(async () => {
  await h?.close();
  await rm(root, { recursive: true, force: true });
});

const post = (url: string, payload: object) =>
  h.app.inject({ method: 'POST', url, headers: { 'X-API-Key': h.key }, payload });
type Hit = {
  smiles: string;
  score: number;
  product_id: string;
  reaction_id: string;
  matched_atom_indices?: number[];
  synthons?: Array<{ slot: number; synthon_id: string; smiles: string }>;
};

describe('v2 search_substructure on a synthon space', () => {
  it('returns the brute-force product set with matches, reactions and coverage', async () => {
    const rd = await getRDKit();
    const want = fixture.substructure.urea_space['[#7]-[#6](=O)-[#7]'].map((s) => canonicalize(rd, s));
    expect(want.length).toBeGreaterThan(0);
    const res = await post('/api/v2/search_substructure', {
      database_id: 'urea',
      query: { format: 'smarts', value: '[#7]-[#6](=O)-[#7]' },
      limit: 200,
      include_synthons: true,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(new Set(body.results.map((r: Hit) => r.smiles))).toEqual(new Set(want));
    expect(body).toMatchObject({
      timed_out: false,
      coverage_fraction: 1,
      available_products: 12,
      indexed_products: 12,
      available_reactions: 1,
      indexed_reactions: 1,
    });
    const hit: Hit = body.results[0];
    expect(hit.matched_atom_indices).toHaveLength(4);
    expect(hit.product_id.split(';')).toEqual([hit.reaction_id, ...hit.synthons!.map((s) => s.synthon_id)]);
  });

  it('superstructure and the deprecated path answer too', async () => {
    const product = fixture.spaces.idorsia_toy_space_a[0].top[0][0];
    const res = await post('/api/v2/substructure', {
      database_id: 'idorsia',
      query: { format: 'smiles', value: product },
      search_mode: 'superstructure',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.results.map((r: Hit) => r.smiles)).toContain(product);
    expect(body.warnings.map((w: { code: string }) => w.code)).toContain('deprecated');
  });

  it('a short timeout_seconds ends an explosive query with timed_out, not a hang', async () => {
    const res = await post('/api/v2/search_substructure', {
      database_id: 'idorsia',
      query: { format: 'smarts', value: 'C' },
      limit: 200,
      // 200 verified hits take tens of ms (a warm thread found them in under 50 ms in CI): 5 ms
      // cannot hold them.
      timeout_seconds: 0.005,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.timed_out).toBe(true);
    expect(body.coverage_fraction).toBeLessThan(1);
    expect(body.warnings[0].code).toBe('timed_out');
  });

  it("a superstructure query with '~' (a SMARTS bond) is a 422 saying why, not 0 rows", async () => {
    const res = await post('/api/v2/search_substructure', {
      database_id: 'idorsia',
      query: { format: 'smiles', value: '[#6]~[#7]' },
      search_mode: 'superstructure',
    });
    expect(res.statusCode).toBe(422);
    const body = JSON.stringify(res.json());
    expect(body).toMatch(/query.*value/);
    expect(body).toMatch(/'~' \(any bond\) is a SMARTS query bond/);
    const smarts = await post('/api/v2/search_substructure', {
      database_id: 'idorsia',
      query: { format: 'smarts', value: '[C,N]' },
      search_mode: 'superstructure',
    });
    expect(smarts.statusCode).toBe(422);
    expect(JSON.stringify(smarts.json())).toMatch(/superstructure finds the products inside a molecule/);
  });

  it('an invalid SMARTS is a 422 naming query.value', async () => {
    const res = await post('/api/v2/search_substructure', {
      database_id: 'idorsia',
      query: { format: 'smarts', value: 'C(C' },
    });
    expect(res.statusCode).toBe(422);
    expect(JSON.stringify(res.json())).toMatch(/query.*value/);
  });
});

describe('v2 search on a synthon space', () => {
  it('a query dissimilar to the space gets the limit best products (brute force), not 0', async () => {
    const ref = JSON.parse(await readFile(DISSIMILAR, 'utf8')) as {
      entries: Array<{ query: string; k: number; top: Array<[string, number]> }>;
    };
    const e = ref.entries[0];
    const res = await post('/api/v2/search', { database_id: 'idorsia', query_smiles: e.query, limit: e.k });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.results.map((r: Hit) => r.score)).toEqual(
      e.top.slice(0, e.k).map((t) => expect.closeTo(t[1], 5)),
    );
    const scoreOf = new Map(e.top);
    for (const r of body.results as Hit[]) expect(scoreOf.get(r.smiles)).toBeCloseTo(r.score, 5);
    expect(body.warnings).toEqual([]);
    // Finished within its budget, so the top `limit` are proven the best.
    expect(body.timed_out).toBe(false);
  });

  it('returns a product reached by two reactions once, still `limit` results', async () => {
    const ref = JSON.parse(await readFile(TWO_ROUTES_REF, 'utf8')) as {
      query: string;
      tuples: Array<{ smiles: string; similarity: number }>;
    };
    const best = new Map<string, number>();
    for (const t of ref.tuples) best.set(t.smiles, Math.max(best.get(t.smiles) ?? 0, t.similarity));
    const want = [...best].sort((a, b) => b[1] - a[1]);
    for (const limit of [2, 5]) {
      const res = await post('/api/v2/search', { database_id: 'tworoutes', query_smiles: ref.query, limit });
      expect(res.statusCode).toBe(200);
      const results = res.json().results as Hit[];
      expect(results.map((r) => r.smiles)).toEqual(want.slice(0, limit).map(([smiles]) => smiles));
      expect(results.map((r) => r.score)).toEqual(want.slice(0, limit).map(([, v]) => expect.closeTo(v, 5)));
    }
  });
});

describe('v2 search_cheese (morgan) on a synthon space', () => {
  const e = () => fixture.spaces.idorsia_toy_space_a[2];

  it('the top hits equal brute force, with the reranking counts and timings', async () => {
    const res = await post('/api/v2/search_cheese', {
      database_id: 'idorsia',
      query_smiles: e().query,
      scorer: 'morgan',
      limit: 10,
      include_synthons: true,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.results.map((r: Hit) => r.score)).toEqual(
      e()
        .top.slice(0, 10)
        .map((t) => expect.closeTo(t[1], 5)),
    );
    expect(body).toMatchObject({
      scorer: 'morgan',
      shortlist_multiplier: 10,
      effective_shortlist: 100,
      timed_out: false,
    });
    for (const k of [
      'proposed',
      'assembled',
      'duplicate_products',
      'duplicate_tuples',
      'invalid',
      'returned',
    ])
      expect(typeof body.counts[k], k).toBe('number');
    expect(body.counts.returned).toBe(10);
    for (const k of ['proposal', 'assembly_and_scoring', 'query', 'total'])
      expect(typeof body.timing_ms[k], k).toBe('number');
    expect(body.results[0].synthons[0]).toEqual(
      expect.objectContaining({ slot: 0, synthon_id: expect.any(String), smiles: expect.any(String) }),
    );
  });

  it('an exclude prefilter drops the matching products of the shortlist', async () => {
    const rd = await getRDKit();
    const smarts = 'C#C';
    const base = { database_id: 'idorsia', query_smiles: e().query, scorer: 'morgan', limit: 20 };
    const all = (await post('/api/v2/search_cheese', base)).json();
    const res = await post('/api/v2/search_cheese', {
      ...base,
      smarts_prefilter_pattern_smarts: smarts,
      smarts_prefilter_mode: 'exclude',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const p = rd.get_qmol(smarts)!;
    const matches = (s: string) => !!JSON.parse(rd.get_mol(s)!.get_substruct_match(p)).atoms;
    for (const r of body.results as Hit[]) expect(matches(r.smiles), r.smiles).toBe(false);
    const kept = (all.results as Hit[]).filter((r) => !matches(r.smiles)).map((r) => r.product_id);
    expect(body.results.slice(0, kept.length).map((r: Hit) => r.product_id)).toEqual(kept);
    expect(body.counts.prefiltered).toBeGreaterThan(0);
    // A pattern of GET /smarts_patterns by id and by label resolves to the same prefilter.
    const g = functionalGroups()[0];
    for (const named of [
      { smarts_prefilter_pattern_id: g.id },
      { smarts_prefilter_pattern_label: g.label },
    ]) {
      const r = await post('/api/v2/search_cheese', { ...base, ...named });
      expect(r.statusCode).toBe(200);
      expect(r.json().smarts_prefilter).toEqual({ smarts: g.smarts, mode: 'include' });
    }
  });

  it('bad input is a 422 naming the field; shape without the 3D path is 503, an over-long 3D shortlist 422', async () => {
    const base = { database_id: 'idorsia', query_smiles: e().query, scorer: 'morgan' };
    const cases: Array<[object, RegExp]> = [
      [{ ...base, query_smiles: 'C1CC' }, /query_smiles/],
      // The reason, not only "could not parse" (user trial).
      [{ ...base, query_smiles: '[#6]~[#7]' }, /query_smiles.*'~' \(any bond\) is a SMARTS query bond/],
      [{ ...base, smarts_prefilter_pattern_id: 'fg_999999' }, /smarts_prefilter_pattern_id/],
      [{ ...base, smarts_prefilter_pattern_smarts: 'C(' }, /smarts_prefilter_pattern_smarts/],
      [{ ...base, scorer: 'tanimoto' }, /scorer/],
    ];
    for (const [payload, field] of cases) {
      const res = await post('/api/v2/search_cheese', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(JSON.stringify(res.json())).toMatch(field);
    }
    // This harness has no 3D search path (no chem3d worker, no shape pool).
    const shape = await post('/api/v2/search_cheese', { ...base, scorer: 'shape' });
    expect(shape.statusCode).toBe(503);
    expect(Number(shape.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.stringify(shape.json())).toMatch(/scorer shape/);
    // The bound is judged before the 3D path is needed: 20 × 10 products would each be embedded.
    const long = await post('/api/v2/search_cheese', {
      ...base,
      scorer: 'esp',
      limit: 20,
      shortlist_multiplier: 10,
    });
    expect(long.statusCode).toBe(422);
    expect(JSON.stringify(long.json())).toMatch(/shortlist_multiplier/);
  });
});

describe('v2 selections over a synthon space', () => {
  const e = () => fixture.spaces.idorsia_toy_space_a[2];
  const doc = (extra: object = {}) => ({
    schema_version: 'molecule-selection/1',
    database: { database_id: 'idorsia' },
    strategy: { type: 'ranked' },
    references: [{ id: 'q', structure: { format: 'smiles', value: e().query } }],
    objectives: [
      { type: 'similarity', direction: 'maximize', metric_id: 'rdkit.ecfp4_tanimoto', reference_id: 'q' },
    ],
    portfolio: { limit: 10 },
    ...extra,
  });

  it('a ranked selection returns the brute-force top products with reactions and synthons', async () => {
    const res = await post('/api/v2/selections', doc({ include: ['synthons'] }));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.results.map((r: Hit) => r.score)).toEqual(
      e()
        .top.slice(0, 10)
        .map((t) => expect.closeTo(t[1], 5)),
    );
    const hit: Hit = body.results[0];
    expect(hit.product_id.split(';')).toEqual([hit.reaction_id, ...hit.synthons!.map((s) => s.synthon_id)]);
    expect(body.execution_plan.candidate_generation).toBe('space_exact_topk_ecfp4_tanimoto');
    const bare = (await post('/api/v2/selections', doc())).json();
    expect(bare.results[0].synthons).toBeUndefined();
    expect(bare.results[0].reaction_id).toBe(hit.reaction_id);
  });

  it('constraints hold on every hit and a warning says they filter the shortlist', async () => {
    const res = await post(
      '/api/v2/selections',
      doc({
        constraints: {
          properties: [{ type: 'property', property_id: 'molecular_weight', operator: 'lte', value: 330 }],
        },
      }),
    );
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.results.length).toBeGreaterThan(0);
    const rd = await getRDKit();
    for (const r of body.results as Hit[])
      expect(JSON.parse(rd.get_mol(r.smiles)!.get_descriptors()).amw).toBeLessThanOrEqual(330);
    expect(body.warnings.map((w: { code: string }) => w.code)).toContain('space_shortlist_postfilter');
  });

  it('a route_product_tuple sample selection is reproducible by seed', async () => {
    const sample = (seed: number) =>
      post('/api/v2/selections', {
        schema_version: 'molecule-selection/1',
        database: { database_id: 'idorsia' },
        strategy: { type: 'sample', distribution: 'route_product_tuple' },
        execution: { seed },
        portfolio: { limit: 5 },
        include: ['synthons'],
      });
    const a = (await sample(7)).json();
    const b = (await sample(7)).json();
    const c = (await sample(8)).json();
    expect(a.results).toHaveLength(5);
    expect(a.results.map((r: Hit) => r.product_id)).toEqual(b.results.map((r: Hit) => r.product_id));
    expect(a.results.map((r: Hit) => r.product_id)).not.toEqual(c.results.map((r: Hit) => r.product_id));
    expect(a.execution_plan.candidate_generation).toBe('route_product_tuple_sample');
    expect(a.results[0].synthons.length).toBeGreaterThan(1);
  });

  it('the catalog lists selections as available on every ready space, with no price constraint', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/v2/catalog',
      headers: { 'X-API-Key': h.key },
    });
    expect(res.statusCode, res.body).toBe(200);
    const spaces = (res.json().libraries as Record<string, any>[]).filter((l) => l.kind === 'synthon');
    expect(spaces.map((l) => l.database_id).sort()).toEqual(['idorsia', 'tworoutes', 'urea']);
    for (const l of spaces) {
      expect(l.capabilities, l.database_id).toMatchObject({ selections: true, sample: true });
      expect(l.pricing, l.database_id).toEqual({ available: false, currency: null, constraints: [] });
    }
  });

  it("the released SDK's where= ids hold on every hit; a price bound is a 422 saying why", async () => {
    // As deepmedchem 0.4.0b5 sends where=['mw<=330', 'arom>=1'] (subsets.py PROPERTIES).
    const res = await post(
      '/api/v2/selections',
      doc({
        constraints: {
          properties: [
            sdkWhere('rdkit.mol_wt', 'Da', 'lte', 330),
            sdkWhere('rdkit.aromatic_rings', 'count', 'gte', 2),
          ],
        },
      }),
    );
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.results.length).toBeGreaterThan(0);
    const rd = await getRDKit();
    for (const r of body.results as Hit[]) {
      const d = JSON.parse(rd.get_mol(r.smiles)!.get_descriptors());
      expect(d.amw, r.smiles).toBeLessThanOrEqual(330);
      expect(d.NumAromaticRings, r.smiles).toBeGreaterThanOrEqual(2);
    }
    const priced = await post(
      '/api/v2/selections',
      doc({
        constraints: { price: { max: 100, currency: 'USD', amount_mg: 1, ship_to: 'US', missing: 'reject' } },
      }),
    );
    expect(priced.statusCode, priced.body).toBe(422);
    expect(priced.json().error).toMatchObject({
      code: 'capability_unavailable',
      message: expect.stringMatching(/constraints\.price.*no price/),
    });
  });

  it('validate and estimate answer for a space; too large a shortlist is refused', async () => {
    const v = await post('/api/v2/selections:validate', doc());
    expect(v.statusCode, v.body).toBe(200);
    expect(v.json().valid).toBe(true);
    const est = (await post('/api/v2/selections:estimate', doc())).json();
    expect(est.work.catalog_rows).toBe(29200);
    const big = await post(
      '/api/v2/selections',
      doc({ portfolio: { limit: 200 }, execution: { shortlist_multiplier: 50 } }),
    );
    expect(big.statusCode).toBe(413);
  });
});
