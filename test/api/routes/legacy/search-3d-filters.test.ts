import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../workflows/support/stack.ts';
import { ASPIRIN, startThreeDStack, type ThreeDStack } from '../../../support/three-d-stack.ts';

// The legacy result filters on the 3D path, over a 41-row catalog made 3D-ready by its real 3D
// stage. Every row fits in one answer (n_neighbors 100), so the Morgan path's filtered answer is
// exactly the set of catalog rows that pass: the 3D answer must keep those rows, in its own order.
const DB = 'filters3d';
let t: ThreeDStack;
type Row = Record<string, number | string | null> & { id: string; similarity: number };

beforeAll(async () => {
  t = await startThreeDStack(DB, 40);
}, 600_000);
afterAll(() => t?.stop());

const q = (params: Record<string, string | string[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(x)}`))
    .join('&');
async function search(params: Record<string, string | string[]>) {
  const r = await call(
    t.s,
    'GET',
    `/molsearch?${q({ search_input: ASPIRIN, db_names: DB, ...params })}`,
    t.s.keyA,
  );
  expect(r.status, r.raw).toBe(200);
  return r.body as { neighbors: Row[]; remarks: string };
}

const FILTERS = { filter_molecules: 'true', filtering: ['Lipinsky', 'QED'] };

describe('GET /molsearch filters on the 3D path', () => {
  it('keeps exactly the rows the Morgan path keeps, in 3D order, with the same QED and remarks', async () => {
    const all = await search({ search_type: 'espsim_shape', n_neighbors: '100' });
    const morgan = await search({ search_type: 'morgan', n_neighbors: '100', ...FILTERS });
    const passes = new Map(morgan.neighbors.map((r) => [r.id, r]));
    // The filters really remove rows here (big drugs break the rule of five, others have low QED).
    expect(all.neighbors).toHaveLength(41);
    expect(passes.size).toBeGreaterThan(5);
    expect(passes.size).toBeLessThan(41);

    const got = await search({ search_type: 'espsim_shape', n_neighbors: '100', ...FILTERS });
    const expected = all.neighbors.filter((r) => passes.has(r.id));
    expect(got.neighbors.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    expect(got.neighbors.map((r) => r.Shapesim)).toEqual(expected.map((r) => r.Shapesim));
    for (const r of got.neighbors) expect(r.QED).toBe(passes.get(r.id)!.QED);
    expect(got.remarks).toMatch(/removed by the 'Lipinsky' filter/);
    expect(got.remarks).toMatch(/removed by the 'QED' filter\(s\) \(QED >= /);
  });

  it('over-fetches so k rows survive, then applies the orderings to the survivors', async () => {
    const all = await search({ search_type: 'espsim_electrostatic', n_neighbors: '100' });
    const morgan = await search({ search_type: 'morgan', n_neighbors: '100', ...FILTERS });
    const passes = new Set(morgan.neighbors.map((r) => r.id));
    // k reaches past the best row the filters remove: without the over-fetch fewer than k survive.
    const k = all.neighbors.findIndex((r) => !passes.has(r.id)) + 2;
    expect(k).toBeGreaterThan(1);
    const topK = all.neighbors.filter((r) => passes.has(r.id)).slice(0, k);
    expect(topK).toHaveLength(k);

    const got = await search({ search_type: 'espsim_electrostatic', n_neighbors: String(k), ...FILTERS });
    expect(got.neighbors.map((r) => r.id)).toEqual(topK.map((r) => r.id));

    const ordered = await search({
      search_type: 'espsim_electrostatic',
      n_neighbors: String(k),
      ...FILTERS,
      ordering: 'Shapesim Dissimilarity',
    });
    const key = (r: Row) => (r.Shapesim as number) - (r['Morgan Tanimoto'] as number);
    const byDissimilarity = [...topK].sort((a, b) => key(b) - key(a));
    expect(ordered.neighbors.map((r) => r.id)).toEqual(byDissimilarity.map((r) => r.id));
  });

  it('ignores the filters when filter_molecules is false, as the Morgan path does', async () => {
    const plain = await search({ search_type: 'espsim_shape', n_neighbors: '10' });
    const off = await search({ search_type: 'espsim_shape', n_neighbors: '10', filtering: ['Lipinsky'] });
    expect(off.neighbors.map((r) => r.id)).toEqual(plain.neighbors.map((r) => r.id));
  });

  it('names an unknown filter in a 422, as the Morgan path does', async () => {
    const r = await call(
      t.s,
      'GET',
      `/molsearch?${q({ search_input: ASPIRIN, db_names: DB, search_type: 'espsim_shape', filter_molecules: 'true', filtering: 'Druglike' })}`,
      t.s.keyA,
    );
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toContain('filtering');
  });
});
