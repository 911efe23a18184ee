import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildReferenceCatalog,
  referenceTanimoto,
  type Reference,
} from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';

// Python RDKit BulkTanimotoSimilarity values (scripts/reference/make_analysis_fixture.py).
const analysisRef = JSON.parse(
  readFileSync(new URL('../../../fixtures/analysis-reference.json', import.meta.url), 'utf8'),
) as { set_a: { smiles: string[] }; similarity: { queries: number; values: number[][] } };
const drugs = analysisRef.set_a.smiles;
const sims = analysisRef.similarity.values;

let h: ApiHarness;
let ref: Reference;
let ids: Map<string, number>;

beforeAll(async () => {
  const a = await buildReferenceCatalog({ id: 'refcat' });
  ref = a.reference;
  ids = a.ids;
  h = await startApiHarness([a.catalog], { analysis: true });
});
afterAll(async () => h?.close());

const q = (params: Record<string, string | number | (string | number)[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');
const get = (path: string, params: Record<string, string | number | (string | number)[]>) =>
  h.app.inject({ method: 'GET', url: `${path}?${q(params)}`, headers: { 'X-API-Key': h.key } });

function expect422(res: { statusCode: number; json(): unknown }, field: string, type?: string) {
  expect(res.statusCode).toBe(422);
  const detail = (res.json() as { detail: { loc: string[]; type: string }[] }).detail;
  expect(detail[0].loc).toEqual(['query', field]);
  if (type) expect(detail[0].type).toBe(type);
}

describe('GET /similarity', () => {
  it('equals RDKit TanimotoSimilarity of the two molecules', async () => {
    const res = await get('/similarity', { smiles_1: drugs[0], smiles_2: drugs[9] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ search_type: 'morgan', metric: 'morgan_tanimoto' });
    expect(res.json().similarity).toBe(sims[0][9]);
  });

  it("is RDKit's double c / (a + b - c) to the last bit, not 1 - distance", async () => {
    // Python RDKit TanimotoSimilarity(CCO, CCN) = 0.3333333333333333; 1 - 2/3 would give ...26.
    const res = await get('/similarity', { smiles_1: 'CCO', smiles_2: 'CCN' });
    expect(res.json().similarity).toBe(0.3333333333333333);
  });

  it('answers 422 naming the field: bad or missing SMILES, 3D or unknown search_type', async () => {
    expect422(await get('/similarity', { smiles_1: 'CCO', smiles_2: 'C1CC' }), 'smiles_2');
    expect422(await get('/similarity', { smiles_1: 'CCO' }), 'smiles_2');
    const shape = await get('/similarity', { smiles_1: 'CCO', smiles_2: 'CCN', search_type: 'espsim_shape' });
    expect422(shape, 'search_type', 'value_error.unknown_metric');
    expect(JSON.stringify(shape.json())).toContain('allowed: morgan');
    expect422(
      await get('/similarity', { smiles_1: 'CCO', smiles_2: 'CCN', search_type: 'bogus' }),
      'search_type',
    );
  });

  it('needs a key', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/similarity?${q({ smiles_1: 'C', smiles_2: 'C' })}`,
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /batch_similarity', () => {
  it('equals BulkTanimotoSimilarity row by row, with an error on the unparsable row only', async () => {
    const list = [...drugs.slice(0, 40), 'not a smiles', ...drugs.slice(40)];
    const res = await get('/batch_similarity', { search_input: drugs[3], smiles_list: list });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.similarity).toHaveLength(list.length);
    expect(body.similarity[40]).toBeNull();
    expect(body.error[40]).toMatch(/unparsable/);
    const got = body.similarity.filter((_: unknown, i: number) => i !== 40);
    got.forEach((s: number, j: number) => expect(s).toBe(sims[3][j]));
    expect(body.error.filter((e: unknown) => e !== null)).toHaveLength(1);
  });

  it('refuses an empty or oversized list and a bad query', async () => {
    expect422(await get('/batch_similarity', { search_input: 'CCO' }), 'smiles_list');
    expect422(await get('/batch_similarity', { search_input: 'CCO', smiles_list: '' }), 'smiles_list');
    const big = Array.from({ length: 1001 }, () => 'C');
    expect422(await get('/batch_similarity', { search_input: 'CCO', smiles_list: big }), 'smiles_list');
    expect422(await get('/batch_similarity', { search_input: 'xyz(', smiles_list: 'CCO' }), 'search_input');
  });
});

describe('GET /similarity_matrix', () => {
  it('equals BulkTanimotoSimilarity for 25 × 150 molecules', async () => {
    const res = await get('/similarity_matrix', {
      smiles_list_1: drugs.slice(0, 25),
      smiles_list_2: drugs,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect([body.rows, body.cols]).toEqual([25, 150]);
    body.matrix.forEach((row: number[], i: number) => row.forEach((v, j) => expect(v).toBe(sims[i][j])));
  });

  it('is square and symmetric without list 2, null rows and columns for unparsable molecules', async () => {
    const list = [drugs[0], 'C1CC', drugs[1], drugs[2]];
    const body = (await get('/similarity_matrix', { smiles_list_1: list })).json();
    expect([body.rows, body.cols]).toEqual([4, 4]);
    expect(body.matrix[1]).toBeNull();
    expect(body.errors_1[1]).toMatch(/unparsable/);
    expect(body.matrix[0][1]).toBeNull();
    expect(body.matrix[0][2]).toBe(sims[0][1]);
    expect(body.matrix[3][0]).toBeCloseTo(body.matrix[0][3], 15);
    expect(body.matrix[2][2]).toBe(1);
  });

  it('refuses more than 250,000 cells synchronously and empty lists', async () => {
    const many = Array.from({ length: 600 }, (_, i) => drugs[i % drugs.length]);
    const res = await get('/similarity_matrix', { smiles_list_1: many, smiles_list_2: many });
    expect422(res, 'smiles_list_2', 'value_error.too_large');
    expect422(await get('/similarity_matrix', {}), 'smiles_list_1');
  });
});

describe('GET /molsearch_array', () => {
  it('answers one exact top-k per input in input order, and a remark for an unparsable one', async () => {
    const inputs = [ref.molecules[4].input, 'C1CC', ref.molecules[12].input];
    const res = await get('/molsearch_array', {
      search_input: inputs,
      search_type: 'morgan',
      n_neighbors: 5,
      descriptors: 'False',
      properties: 'False',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toHaveLength(3);
    expect(body[1]).toMatchObject({ neighbors: [], canonicalized_query: null, remarks: 'unparsable SMILES' });
    for (const [slot, qi] of [
      [0, 4],
      [2, 12],
    ]) {
      expect(body[slot].canonicalized_query).toBe(ref.molecules[qi].canonical);
      const want = [...ids.values()]
        .map((i) => referenceTanimoto(ref.molecules[qi].on_bits, ref.molecules[i].on_bits))
        .sort((x, y) => y - x)
        .slice(0, 5);
      expect(body[slot].neighbors.map((n: { similarity: number }) => n.similarity)).toEqual(
        want.map((w) => expect.closeTo(w, 12)),
      );
    }
  });

  it('refuses empty and oversized lists, unknown databases and 3D search types', async () => {
    expect422(await get('/molsearch_array', {}), 'search_input');
    const many = Array.from({ length: 101 }, () => 'CCO');
    expect422(await get('/molsearch_array', { search_input: many }), 'search_input');
    expect422(await get('/molsearch_array', { search_input: 'CCO', db_names: 'nope' }), 'db_names');
    expect422(
      await get('/molsearch_array', { search_input: 'CCO', search_type: 'espsim_shape' }),
      'search_type',
    );
  });
});

describe('GET|POST /molsearch_embedding', () => {
  it('with the on-bits of a molecule equals /molsearch of that molecule', async () => {
    const m = ref.molecules[7];
    const byBits = (await get('/molsearch_embedding', { on_bits: m.on_bits, n_neighbors: 6 })).json();
    const bySmiles = (
      await get('/molsearch', { search_input: m.input, search_type: 'morgan', n_neighbors: 6 })
    ).json();
    expect(byBits.neighbors.map((n: { id: string }) => n.id)).toEqual(
      bySmiles.neighbors.map((n: { id: string }) => n.id),
    );
    expect(byBits.neighbors[0].similarity).toBe(1);
  });

  it('takes a continuous vector in the body and ranks by continuous Tanimoto', async () => {
    const v = new Array(2048).fill(0);
    for (const b of ref.molecules[3].on_bits) v[b] = 0.5;
    for (const b of ref.molecules[9].on_bits) v[b] += 0.5;
    const res = await h.app.inject({
      method: 'POST',
      url: '/molsearch_embedding?n_neighbors=3',
      headers: { 'X-API-Key': h.key },
      payload: { embedding: v },
    });
    expect(res.statusCode).toBe(200);
    const hits = res.json().neighbors;
    expect(hits).toHaveLength(3);
    // continuous Tanimoto x·w / (|x|² + |w|² − x·w) of each hit, from the reference bits
    const score = (bits: number[]) => {
      const dot = bits.reduce((s, b) => s + v[b], 0);
      const ww = v.reduce((s, x) => s + x * x, 0);
      return dot / (bits.length + ww - dot);
    };
    for (const n of hits) expect(n.similarity).toBeCloseTo(score(ref.molecules[ids.get(n.id)!].on_bits), 5);
  });

  it('refuses wrong lengths, non-numbers, all zeros, both inputs and bits out of range', async () => {
    expect422(
      await get('/molsearch_embedding', { embedding: '1,0,1' }),
      'embedding',
      'value_error.dimension_mismatch',
    );
    expect422(await get('/molsearch_embedding', { embedding: 'a,b' }), 'embedding');
    const zeros = new Array(2048).fill(0).join(',');
    expect422(
      await get('/molsearch_embedding', { embedding: zeros }),
      'embedding',
      'value_error.invalid_embedding',
    );
    expect422(await get('/molsearch_embedding', { embedding: '1', on_bits: 3 }), 'embedding');
    expect422(await get('/molsearch_embedding', {}), 'embedding');
    expect422(await get('/molsearch_embedding', { on_bits: 4096 }), 'on_bits');
  });
});

describe('GET /database_similarity', () => {
  it("gives each molecule's nearest neighbour and numpy's quantiles of those scores", async () => {
    const inputs = [ref.molecules[0].input, ref.molecules[5].input, 'CCCCCCCCCCCCCCCCCCCCCCCC', 'C1CC'];
    const res = await get('/database_similarity', { search_input: inputs, bins: 10 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.nearest[0]).toMatchObject({ similarity: 1, database: 'refcat' });
    expect(body.nearest[3]).toMatchObject({ similarity: null });
    expect(body.nearest[3].error).toBeTruthy();
    const chain = Math.max(
      ...[...ids.values()].map((i) => {
        const m = ref.molecules[i];
        return m.canonical === 'CCCCCCCCCCCCCCCCCCCCCCCC' ? 1 : -1;
      }),
    );
    if (chain < 0) expect(body.nearest[2].similarity).toBeLessThan(1);
    expect(body.distribution.count).toBe(3);
    expect(body.distribution.histogram.counts).toHaveLength(10);
    expect(body.distribution.histogram.counts.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    const s = [body.nearest[0].similarity, body.nearest[1].similarity, body.nearest[2].similarity].sort();
    expect(body.distribution.quantiles.p50).toBeCloseTo(s[1], 12);
  });

  it('refuses empty lists, bad bins and unknown databases', async () => {
    expect422(await get('/database_similarity', {}), 'search_input');
    expect422(await get('/database_similarity', { search_input: 'CCO', bins: 0 }), 'bins');
    expect422(await get('/database_similarity', { search_input: 'CCO', db_names: 'x' }), 'db_names');
  });
});

describe('GET /molsearch_array with Accept: application/csv', () => {
  it('answers one CSV of every query’s neighbours, in input order and rank', async () => {
    const inputs = [ref.molecules[4].input, ref.molecules[12].input];
    const res = await h.app.inject({
      method: 'GET',
      url: `/molsearch_array?${q({ search_input: inputs, n_neighbors: 3 })}`,
      headers: { 'X-API-Key': h.key, Accept: 'application/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/csv/);
    expect(res.headers['content-disposition']).toContain('molsearch_array.csv');
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe('query_index,query_smiles,rank,smiles,id,database,db_id,similarity');
    expect(lines).toHaveLength(1 + 6);
    const json = (await get('/molsearch_array', { search_input: inputs, n_neighbors: 3 })).json();
    expect(lines[1].split(',')[4]).toBe(json[0].neighbors[0].id);
    expect(lines[4].split(',').slice(0, 3)).toEqual(['1', inputs[1], '1']);
    expect(Number(lines[4].split(',')[7])).toBe(json[1].neighbors[0].similarity);
  });
});
