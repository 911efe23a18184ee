import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildReferenceCatalog,
  referenceTanimoto,
  type Reference,
} from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';

let h: ApiHarness;
let ref: Reference;
let ids: Map<string, number>;

beforeAll(async () => {
  const a = await buildReferenceCatalog({
    id: 'refcat_a',
    take: (_m, i) => i % 2 === 0,
    license: 'CC BY-SA 3.0',
    source: 'ChEMBL via a test',
  });
  const b = await buildReferenceCatalog({ id: 'refcat_b', take: (_m, i) => i % 2 === 1 });
  ref = a.reference;
  ids = new Map([...a.ids, ...b.ids]);
  h = await startApiHarness([a.catalog, b.catalog]);
});
afterAll(async () => h?.close());

const get = (url: string, key: string | null = h.key, header = 'X-API-Key') =>
  h.app.inject({ method: 'GET', url, headers: key === null ? {} : { [header]: key } });
const q = (params: Record<string, string | number | string[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');

/** Brute-force top-k over the reference on-bits (Python RDKit), the expected answer. */
function expectedTopK(queryIndex: number, candidates: number[], k: number) {
  const qb = ref.molecules[queryIndex].on_bits;
  return candidates
    .map((i) => ({ i, s: referenceTanimoto(qb, ref.molecules[i].on_bits) }))
    .sort((x, y) => y.s - x.s)
    .slice(0, k);
}

describe('GET /molsearch (morgan)', () => {
  it('returns the exact top-k by RDKit Tanimoto across two databases, best first', async () => {
    const qi = 10;
    const res = await get(
      `/molsearch?${q({ search_input: ref.molecules[qi].input, search_type: 'morgan', db_names: ['refcat_a', 'refcat_b'], n_neighbors: 20 })}`,
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.canonicalized_query).toBe(ref.molecules[qi].canonical);
    expect(body.search_info).toMatchObject({
      search_type: ['morgan'],
      db_names: ['refcat_a', 'refcat_b'],
      count: 20,
    });
    const expected = expectedTopK(qi, [...ids.values()], 20);
    const got = body.neighbors.map((n: { id: string; similarity: number }) => ({
      i: ids.get(n.id)!,
      s: n.similarity,
    }));
    expect(got.map((g: { s: number }) => g.s)).toEqual(expected.map((e) => expect.closeTo(e.s, 12)));
    for (const g of got)
      expect(g.s).toBeCloseTo(referenceTanimoto(ref.molecules[qi].on_bits, ref.molecules[g.i].on_bits), 12);
    expect(body.neighbors[0]).toMatchObject({
      smiles: ref.molecules[qi].canonical,
      similarity: 1,
      'Morgan Tanimoto': 1,
    });
    expect(new Set(body.neighbors.map((n: { database: string }) => n.database))).toEqual(
      new Set(['refcat_a', 'refcat_b']),
    );
  });

  it('adds the 11 descriptors with RDKit reference values when descriptors=true', async () => {
    const res = await get(
      `/molsearch?${q({ search_input: ref.molecules[4].input, search_type: 'morgan', db_names: 'refcat_a', n_neighbors: 5, descriptors: 'True', properties: 'False' })}`,
    );
    expect(res.statusCode).toBe(200);
    for (const n of res.json().neighbors) {
      const m = ref.molecules[ids.get(n.id)!];
      for (const [name, value] of Object.entries(m.descriptors)) expect(n[name]).toBeCloseTo(value, 6);
    }
  });

  it('omits descriptors when descriptors=false and accepts a single db_names value', async () => {
    const res = await get(
      `/molsearch?${q({ search_input: 'c1ccccc1O', search_type: 'morgan', db_names: 'refcat_b', n_neighbors: 3, descriptors: 'false', properties: 'false' })}`,
    );
    expect(res.statusCode).toBe(200);
    const n = res.json().neighbors[0];
    expect(Object.keys(n).sort()).toEqual(
      ['Morgan Tanimoto', 'database', 'db_id', 'id', 'similarity', 'smiles'].sort(),
    );
  });

  it('rejects a search type the database does not serve with a 422 naming the available ones', async () => {
    const res = await get(`/molsearch?${q({ search_input: 'CCO', db_names: 'refcat_a' })}`);
    expect(res.statusCode).toBe(422);
    const d = res.json().detail[0];
    expect(d.loc).toEqual(['query', 'search_type']);
    expect(d.msg).toMatch(/espsim_shape/);
    expect(d.msg).toMatch(/available search types: morgan/);
  });

  it('enforces at most 2 databases with 422s', async () => {
    const threeDbs = await get(
      `/molsearch?${q({ search_input: 'CCO', search_type: 'morgan', db_names: ['refcat_a', 'refcat_b', 'x'] })}`,
    );
    expect(threeDbs.statusCode).toBe(422);
    expect(threeDbs.json().detail[0].loc).toEqual(['query', 'db_names']);
    const unknownDb = await get(
      `/molsearch?${q({ search_input: 'CCO', search_type: 'morgan', db_names: 'nope' })}`,
    );
    expect(unknownDb.statusCode).toBe(422);
    expect(unknownDb.json().detail[0].msg).toMatch(/refcat_a/);
  });

  it('answers an unknown search_type with one FastAPI-shaped 422 issue listing the allowed values', async () => {
    const res = await get(
      `/molsearch?${q({ search_input: 'CCO', search_type: 'bogus', db_names: 'refcat_a' })}`,
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        loc: ['query', 'search_type', 0],
        msg: 'must be one of: morgan, espsim_electrostatic, espsim_shape, synthongpt, consensus',
        type: 'value_error.enum',
      },
    ]);
  });

  it('reads integers only as decimal digits: 1e3 and 0x10 are 422s naming the field, 5 and +5 are 5', async () => {
    for (const bad of ['1e3', '0x10', '1.0', '']) {
      const res = await get(
        `/molsearch?${q({ search_input: 'CCO', search_type: 'morgan', db_names: 'refcat_a', n_neighbors: bad })}`,
      );
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ loc: ['query', 'n_neighbors'] });
    }
    for (const good of ['5', '+5']) {
      const res = await get(
        `/molsearch?${q({ search_input: 'CCO', search_type: 'morgan', db_names: 'refcat_a', n_neighbors: good })}`,
      );
      expect(res.statusCode, good).toBe(200);
      expect(res.json().neighbors, good).toHaveLength(5);
    }
  });

  it('answers a bad SMILES with a 422 naming search_input', async () => {
    for (const bad of ['C1CC', 'not a molecule', 'X'.repeat(2000)]) {
      const res = await get(
        `/molsearch?${q({ search_input: bad, search_type: 'morgan', db_names: 'refcat_a' })}`,
      );
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', 'search_input']);
    }
  });

  it('rejects unknown and unavailable filters and orderings, listing the allowed values', async () => {
    const f = await get(
      `/molsearch?${q({ search_input: 'CCO', search_type: 'morgan', db_names: 'refcat_a', filter_molecules: 'true', filtering: 'Bogus' })}`,
    );
    expect(f.statusCode).toBe(422);
    expect(f.json().detail[0]).toMatchObject({ loc: ['query', 'filtering'] });
    expect(f.json().detail[0].msg).toMatch(/No solvents/);
    const o = await get(
      `/molsearch?${q({ search_input: 'CCO', search_type: 'morgan', db_names: 'refcat_a', ordering: 'Nope' })}`,
    );
    expect(o.statusCode).toBe(422);
    expect(o.json().detail[0].loc).toEqual(['query', 'ordering']);
  });

  it('drops solvents with the No solvents filter and still returns n_neighbors rows when it can', async () => {
    const base = {
      search_input: 'CCO',
      search_type: 'morgan',
      db_names: ['refcat_a', 'refcat_b'],
      n_neighbors: 10,
      descriptors: 'false',
      properties: 'false',
    };
    const res = await get(`/molsearch?${q({ ...base, filter_molecules: 'true', filtering: 'No solvents' })}`);
    expect(res.statusCode).toBe(200);
    const smiles = res.json().neighbors.map((n: { smiles: string }) => n.smiles);
    expect(smiles).not.toContain('CCO');
    expect(smiles).toHaveLength(10);
  });

  it('serves /molsearch_simple with the same neighbours', async () => {
    const a = await get(
      `/molsearch_simple?${q({ search_input: 'c1ccncc1C(=O)N', search_type: 'morgan', db_names: 'refcat_a', n_neighbors: 7 })}`,
    );
    const b = await get(
      `/molsearch?${q({ search_input: 'c1ccncc1C(=O)N', search_type: 'morgan', db_names: 'refcat_a', n_neighbors: 7 })}`,
    );
    expect(a.statusCode).toBe(200);
    expect(a.json().neighbors.map((n: { id: string }) => n.id)).toEqual(
      b.json().neighbors.map((n: { id: string }) => n.id),
    );
  });
});

describe('GET /batch_search', () => {
  it('batch mode answers one payload per input, in input order, each its own exact top-k', async () => {
    const inputs = [3, 8, 15];
    const res = await get(
      `/batch_search?${q({ search_type: 'morgan', search_mode: 'batch', n_neighbors: 5, db_names: ['refcat_a', 'refcat_b'], search_input: inputs.map((i) => ref.molecules[i].input) })}`,
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toHaveLength(3);
    body.forEach((p: { neighbors: { similarity: number }[]; canonicalized_query: string }, j: number) => {
      expect(p.canonicalized_query).toBe(ref.molecules[inputs[j]].canonical);
      expect(p.neighbors.map((n) => n.similarity)).toEqual(
        expectedTopK(inputs[j], [...ids.values()], 5).map((e) => expect.closeTo(e.s, 12)),
      );
    });
  });

  it('centroid mode answers one payload ranked against the mean fingerprint', async () => {
    const res = await get(
      `/batch_search?${q({ search_type: 'morgan', n_neighbors: 5, db_names: 'refcat_a', search_input: [ref.molecules[2].input, ref.molecules[6].input] })}`,
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Array.isArray(body)).toBe(false);
    expect(body.neighbors).toHaveLength(5);
    const sims = body.neighbors.map((n: { similarity: number }) => n.similarity);
    expect([...sims].sort((x, y) => y - x)).toEqual(sims);
  });

  it('requires at least one input', async () => {
    const res = await get(`/batch_search?${q({ search_type: 'morgan', db_names: 'refcat_a' })}`);
    expect(res.statusCode).toBe(422);
  });
});

describe('catalog and service endpoints', () => {
  it('lists databases keyed by name with vendor, web page, size and contact', async () => {
    const body = (await get('/available_databases')).json();
    expect(Object.keys(body).sort()).toEqual(['refcat_a', 'refcat_b']);
    expect(body.refcat_a).toMatchObject({
      vendor: expect.any(String),
      vendor_web_page: expect.any(String),
      quotation_contact: expect.any(String),
    });
    expect(body.refcat_a.number_of_molecules + body.refcat_b.number_of_molecules).toBe(ids.size);
    const full = (await get('/available_databases_full')).json();
    expect(full.refcat_a.search_types).toEqual(['morgan']);
  });

  it("names each catalog's licence and source, from its manifest", async () => {
    const res = await get('/license_information');
    expect(res.statusCode).toBe(200);
    expect(res.json().databases).toEqual({
      refcat_a: { license: 'CC BY-SA 3.0', source: 'ChEMBL via a test' },
      // Built without either: said so, not invented.
      refcat_b: { license: 'see source', source: null },
    });
  });

  it('returns random molecules from the catalogs and bounds n_mols', async () => {
    const res = await get('/random_molecule?n_mols=5');
    expect(res.statusCode).toBe(200);
    const canon = new Set(ref.molecules.map((m) => m.canonical));
    for (const s of res.json()) expect(canon.has(s)).toBe(true);
    expect((await get('/random_molecule?n_mols=0')).statusCode).toBe(422);
    expect((await get('/random_molecule?n_mols=100000')).statusCode).toBe(422);
    expect((await get('/random_molecule?n_mols=abc')).json().detail[0].loc).toEqual(['query', 'n_mols']);
  });

  it('publishes an OpenAPI 3.1 document with response schemas', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.0.1');
    expect(
      doc.paths['/molsearch'].get.responses['200'].content['application/json'].schema.properties.neighbors,
    ).toBeDefined();
    expect(doc.paths['/molsearch'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining([
        'search_input',
        'search_type',
        'search_quality',
        'db_names',
        'n_neighbors',
        'descriptors',
        'properties',
        'filter_molecules',
        'order_molecules',
        'filtering',
        'ordering',
      ]),
    );
    // A parameter with a default is optional to a client (the validator fills it in).
    const param = (name: string) =>
      doc.paths['/molsearch'].get.parameters.find((p: { name: string }) => p.name === name);
    expect(param('search_input').schema.default).toBeDefined();
    expect(param('search_input').required).not.toBe(true);
    expect(param('n_neighbors').required).not.toBe(true);
    expect((await h.app.inject({ method: 'GET', url: '/docs' })).statusCode).toBeLessThan(400);
  });

  it('answers /test and /health without a key', async () => {
    expect((await get('/test', null)).json().message).toMatch(/running/);
    expect((await get('/health', null)).statusCode).toBe(200);
  });
});
