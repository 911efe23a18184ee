import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../workflows/support/stack.ts';
import { ASPIRIN, DRUGS, startThreeDStack, type ThreeDStack } from '../../../support/three-d-stack.ts';

// Several types in one call, consensus, the dissimilarity orderings and the 3D centroid, over a
// 31-row catalog made 3D-ready by its real 3D stage. `fast` proposes 100 rows, so here every row
// is aligned and scored exactly; the pair scores themselves are checked against espsim and RDKit
// fixtures in test/engine/shape, these tests check how the paths combine them.
const DB = 'fusion3d';
let t: ThreeDStack;
type Row = Record<string, number | string | null> & { id: string; similarity: number };

beforeAll(async () => {
  t = await startThreeDStack(DB, 30);
}, 600_000);
afterAll(() => t?.stop());

const q = (params: Record<string, string | string[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(x)}`))
    .join('&');
async function get(path: string, params: Record<string, string | string[]>) {
  return call(t.s, 'GET', `${path}?${q(params)}`, t.s.keyA);
}
async function rows(path: string, params: Record<string, string | string[]>): Promise<Row[]> {
  const r = await get(path, params);
  expect(r.status, r.raw).toBe(200);
  return r.body.neighbors;
}
const byId = (rs: Row[]) => new Map(rs.map((r) => [r.id, r]));

describe('/molsearch_simple with several search types', () => {
  it('ranks by the first type and carries a score column per type (morgan first: the morgan search rows)', async () => {
    const base = { search_input: ASPIRIN, db_names: DB, n_neighbors: '8' };
    const morgan = await rows('/molsearch_simple', { ...base, search_type: 'morgan' });
    const both = await rows('/molsearch_simple', { ...base, search_type: ['morgan', 'espsim_shape'] });
    expect(both.map((r) => r.id)).toEqual(morgan.map((r) => r.id));
    expect(both.map((r) => r['Morgan Tanimoto'])).toEqual(morgan.map((r) => r['Morgan Tanimoto']));
    expect(both.every((r) => r.similarity === r['Morgan Tanimoto'])).toBe(true);
    const shape = byId(
      await rows('/molsearch_simple', { ...base, search_type: 'espsim_shape', n_neighbors: '100' }),
    );
    for (const r of both) {
      expect(typeof r.Shapesim).toBe('number');
      expect(r.Shapesim).toBe(shape.get(r.id)!.Shapesim);
      expect(r.Espsim).toBe(shape.get(r.id)!.Espsim);
    }
  });

  it('ranks by shape when espsim_shape comes first, with the same Morgan column as a morgan search', async () => {
    const base = { search_input: ASPIRIN, db_names: DB, n_neighbors: '100' };
    const r = await get('/molsearch_simple', { ...base, search_type: ['espsim_shape', 'morgan'] });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.search_info.search_type).toEqual(['espsim_shape', 'morgan']);
    const out: Row[] = r.body.neighbors;
    expect(out[0]).toMatchObject({ id: 'ASPIRIN', 'Morgan Tanimoto': 1 });
    expect(out.every((x) => x.similarity === x.Shapesim)).toBe(true);
    const sims = out.map((x) => x.similarity);
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    const morgan = byId(await rows('/molsearch_simple', { ...base, search_type: 'morgan' }));
    for (const x of out) expect(x['Morgan Tanimoto']).toBe(morgan.get(x.id)!['Morgan Tanimoto']);
  });

  it('rejects a type that cannot be combined with 3D types', async () => {
    const r = await get('/molsearch_simple', {
      search_input: ASPIRIN,
      db_names: DB,
      search_type: ['espsim_shape', 'synthongpt'],
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'search_type']);
  });
});

describe('search_type=consensus', () => {
  it('ranks by reciprocal-rank fusion of the Morgan, shape and ESP rankings (the query itself scores 1)', async () => {
    const out = await rows('/molsearch', {
      search_input: ASPIRIN,
      db_names: DB,
      search_type: 'consensus',
      n_neighbors: '100',
      descriptors: 'false',
      properties: 'false',
    });
    expect(out.length).toBeGreaterThan(25);
    expect(out[0]).toMatchObject({ id: 'ASPIRIN', similarity: 1, Consensus: 1 });
    expect(out.every((x) => x.similarity === x.Consensus)).toBe(true);
    // Every row is a candidate here, so each fused score can be recomputed from the columns; rows
    // tied in one column may take either rank, so the score must lie between the two bounds.
    const cols = ['Morgan Tanimoto', 'Shapesim', 'Espsim'];
    for (const x of out) {
      let lo = 0;
      let hi = 0;
      for (const c of cols) {
        const v = x[c] as number;
        const better = out.filter((y) => (y[c] as number) > v).length;
        const notWorse = out.filter((y) => (y[c] as number) >= v).length;
        hi += 1 / (60 + better + 1);
        lo += 1 / (60 + notWorse);
      }
      expect(x.Consensus).toBeGreaterThanOrEqual(lo / (3 / 61) - 1e-12);
      expect(x.Consensus).toBeLessThanOrEqual(hi / (3 / 61) + 1e-12);
    }
  });
});

describe('orderings Shapesim Dissimilarity and Espsim Dissimilarity', () => {
  it('reorders the rows of a shape search by Shapesim − Morgan Tanimoto, with that column', async () => {
    const base = { search_input: ASPIRIN, db_names: DB, search_type: 'espsim_shape', n_neighbors: '10' };
    const plain = await rows('/molsearch', base);
    const hop = await rows('/molsearch', { ...base, ordering: 'Shapesim Dissimilarity' });
    expect(new Set(hop.map((r) => r.id))).toEqual(new Set(plain.map((r) => r.id)));
    const key = hop.map((r) => r['Shapesim Dissimilarity'] as number);
    hop.forEach((r, i) => expect(key[i]).toBe((r.Shapesim as number) - (r['Morgan Tanimoto'] as number)));
    expect([...key].sort((a, b) => b - a)).toEqual(key);
    expect(hop[hop.length - 1].id).toBe('ASPIRIN'); // shape 1 − Morgan 1 = 0: no hop at all
  });

  it('gives a morgan search 3D scores and orders its rows by Espsim − Morgan Tanimoto', async () => {
    const base = { search_input: ASPIRIN, db_names: DB, search_type: 'morgan', n_neighbors: '10' };
    const plain = await rows('/molsearch', base);
    const hop = await rows('/molsearch', { ...base, ordering: 'Espsim Dissimilarity' });
    expect(new Set(hop.map((r) => r.id))).toEqual(new Set(plain.map((r) => r.id)));
    const key = hop.map((r) => (r.Espsim as number) - (r['Morgan Tanimoto'] as number));
    expect(hop.map((r) => r['Espsim Dissimilarity'])).toEqual(key);
    expect([...key].sort((a, b) => b - a)).toEqual(key);
  });

  it('answers 422 for an unknown ordering, and names db_names on a database without 3D data', async () => {
    const bad = await get('/molsearch', { search_input: ASPIRIN, db_names: DB, ordering: 'Bogus' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'ordering']);
    const flat = await get('/molsearch', {
      search_input: ASPIRIN,
      db_names: 'flat',
      search_type: 'morgan',
      ordering: 'Shapesim Dissimilarity',
    });
    expect(flat.status).toBe(422);
    expect(flat.body.detail[0].loc).toEqual(['query', 'db_names']);
  });
});

describe('/batch_search centroid mode with 3D types', () => {
  const inputs = [ASPIRIN, DRUGS[3][0]];
  it('with one input, equals that input’s own 3D search', async () => {
    const one = await get('/batch_search', {
      search_input: ASPIRIN,
      db_names: DB,
      search_type: 'espsim_shape',
      search_mode: 'centroid',
      n_neighbors: '10',
    });
    expect(one.status, one.raw).toBe(200);
    const single = await rows('/molsearch_simple', {
      search_input: ASPIRIN,
      db_names: DB,
      search_type: 'espsim_shape',
      n_neighbors: '10',
    });
    expect(one.body.neighbors.map((r: Row) => [r.id, r.similarity])).toEqual(
      single.map((r) => [r.id, r.similarity]),
    );
  });

  it('scores each row by the mean of its similarities to every input', async () => {
    for (const type of ['espsim_shape', 'espsim_electrostatic']) {
      const c = await get('/batch_search', {
        search_input: inputs,
        db_names: DB,
        search_type: type,
        search_mode: 'centroid',
        n_neighbors: '100',
      });
      expect(c.status, c.raw).toBe(200);
      const each = await get('/batch_search', {
        search_input: inputs,
        db_names: DB,
        search_type: type,
        search_mode: 'batch',
        n_neighbors: '100',
      });
      const [a, b] = each.body.map((p: { neighbors: Row[] }) => byId(p.neighbors));
      const col = type === 'espsim_shape' ? 'Shapesim' : 'Espsim';
      const out: Row[] = c.body.neighbors;
      expect(out.length).toBe(a.size);
      for (const r of out) {
        const mean = ((a.get(r.id)![col] as number) + (b.get(r.id)![col] as number)) / 2;
        expect(r.similarity).toBeCloseTo(mean, 12);
        expect(r[col]).toBe(r.similarity);
      }
      const sims = out.map((r) => r.similarity);
      expect([...sims].sort((x, y) => y - x)).toEqual(sims);
    }
  });

  it('answers 422 naming the input that cannot be embedded, and on more than 10 inputs', async () => {
    const r = await get('/batch_search', {
      search_input: [ASPIRIN, 'C'.repeat(130)],
      db_names: DB,
      search_type: 'espsim_shape',
      search_mode: 'centroid',
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'search_input', 1]);
    const many = await get('/batch_search', {
      search_input: DRUGS.slice(0, 11).map((d) => d[0]),
      db_names: DB,
      search_type: 'espsim_shape',
      search_mode: 'centroid',
    });
    expect(many.status).toBe(422);
    expect(many.body.detail[0].loc).toEqual(['query', 'search_input']);
    expect(many.body.detail[0].msg).toMatch(/at most 10 inputs/);
  });
});
