import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, openCatalog } from '../../../../engine/catalog/index.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';
import { loadFilterReference, type FilterReferenceMolecule } from '../../../engine/filters/reference.ts';

// A real catalog of the filter fixture's molecules (ids FLT-<index>); expected verdicts come from
// Python RDKit (test/fixtures/filters-reference.json), the ranking from the engine (checked against
// RDKit in legacy-search.test.ts).
const ref = loadFilterReference();
const medchem = JSON.parse(
  readFileSync(new URL('../../../fixtures/medchem-filters-reference.json', import.meta.url), 'utf8'),
) as {
  molecules: { smiles: string; no_rare_atoms: boolean }[];
  queries: { smiles: string; scaffold_hop: boolean[]; regioisomer: boolean[] }[];
};
let h: ApiHarness;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fltcat-'));
  const seen = new Set<string>();
  const lines = ['smiles\tid'];
  ref.molecules.forEach((m, i) => {
    if (seen.has(m.canonical)) return;
    seen.add(m.canonical);
    lines.push(`${m.input}\tFLT-${i}`);
  });
  await writeFile(join(dir, 'input.tsv'), lines.join('\n') + '\n');
  const out = join(dir, 'fltcat');
  await buildCatalog({
    input: join(dir, 'input.tsv'),
    outDir: out,
    id: 'fltcat',
    name: 'Filter reference catalog',
    smilesCol: 'smiles',
    idCol: 'id',
    delimiter: '\t',
    threads: 1,
    progress: false,
    shardRows: 64,
  });
  h = await startApiHarness([await openCatalog(out)]);
}, 120_000);
afterAll(async () => h?.close());

type Row = { id: string; smiles: string; similarity: number; QED?: number };
const molOf = (row: Row): FilterReferenceMolecule => ref.molecules[Number(row.id.slice(4))];
const q = (params: Record<string, string | number | string[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');
const search = async (params: Record<string, string | number | string[]>) => {
  const res = await h.app.inject({
    method: 'GET',
    url: `/molsearch?${q({ search_type: 'morgan', db_names: 'fltcat', descriptors: 'false', properties: 'false', ...params })}`,
    headers: { 'X-API-Key': h.key },
  });
  return res;
};
const rows = async (params: Record<string, string | number | string[]>): Promise<Row[]> => {
  const res = await search(params);
  expect(res.statusCode).toBe(200);
  return res.json().neighbors as Row[];
};

/**
 * The filtered answer must be the first `n` rows of the unfiltered ranking (all 100) that pass
 * the Python verdict, and the filter must really have removed something from the top `n`.
 */
async function expectFiltered(
  query: string,
  filtering: string[],
  passes: (m: FilterReferenceMolecule) => boolean,
  n = 20,
): Promise<Row[]> {
  const all = await rows({ search_input: query, n_neighbors: 100 });
  const got = await rows({ search_input: query, n_neighbors: n, filter_molecules: 'true', filtering });
  const expected = all.filter((r) => passes(molOf(r))).slice(0, n);
  expect(expected.length).toBeGreaterThan(0);
  expect(got.map((r) => r.id)).toEqual(expected.map((r) => r.id));
  expect(all.slice(0, n).some((r) => !passes(molOf(r)))).toBe(true);
  return got;
}

const painsQuery = ref.molecules.find((m) => m.pains.length > 0)!.canonical;

describe('legacy filters on GET /molsearch', () => {
  it('Lipinsky keeps exactly the molecules with at most one rule-of-five violation', async () => {
    const bigDrug = ref.molecules.find((m) => !m.lipinski.pass)!.canonical;
    await expectFiltered(bigDrug, ['Lipinsky'], (m) => m.lipinski.pass);
  });

  it('QED keeps molecules with QED >= 0.5 and reports Python RDKit QED per row', async () => {
    const got = await expectFiltered('CCO', ['QED'], (m) => m.qed >= 0.5);
    for (const r of got) expect(r.QED).toBeCloseTo(molOf(r).qed, 6);
  });

  it('PAINS drops every molecule that matches a PAINS pattern', async () => {
    await expectFiltered(painsQuery, ['PAINS'], (m) => m.pains.length === 0);
  });

  it('Substructure keeps neighbours that contain the query', async () => {
    await expectFiltered(ref.substructure_queries[0], ['Substructure'], (m) => m.contains_query[0]);
  });

  it('Superstructure keeps neighbours that are substructures of the query', async () => {
    const query = ref.substructure_queries[5];
    const got = await rows({
      search_input: query,
      n_neighbors: 20,
      filter_molecules: 'true',
      filtering: 'Superstructure',
    });
    // Few molecules qualify, some beyond the unfiltered top 100 but within the over-fetched
    // candidates of this small catalog: expect all of them, best first.
    const expected = ref.molecules.flatMap((m, i) => (m.in_query[5] ? [`FLT-${i}`] : []));
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(new Set(got.map((r) => r.id))).toEqual(new Set(expected));
    for (let i = 1; i < got.length; i++) expect(got[i].similarity).toBeLessThanOrEqual(got[i - 1].similarity);
  });

  it('several filters keep only the molecules that pass all of them', async () => {
    await expectFiltered(
      painsQuery,
      ['Lipinsky', 'QED', 'PAINS', 'No solvents'],
      (m) => m.lipinski.pass && m.qed >= 0.5 && m.pains.length === 0,
      10,
    );
  });

  it('Murcko scaffold hop and No rare atoms keep exactly the neighbours Python RDKit keeps', async () => {
    // medchem-filters-reference.json lists the inputs of this catalog first, by the same SMILES.
    const index = new Map(medchem.molecules.map((m, i) => [m.smiles, i]));
    const verdict = (list: boolean[]) => (m: FilterReferenceMolecule) => list[index.get(m.input)!];
    const aspirin = medchem.queries.find((x) => x.smiles === 'CC(=O)Oc1ccccc1C(=O)O')!;
    await expectFiltered(aspirin.smiles, ['Murcko scaffold hop'], verdict(aspirin.scaffold_hop));
    const rare = medchem.molecules.map((m) => m.no_rare_atoms);
    const got = await rows({
      search_input: 'c1ccccc1',
      n_neighbors: 100,
      filter_molecules: 'true',
      filtering: 'No rare atoms',
    });
    expect(got.length).toBeGreaterThan(0);
    for (const r of got) expect(verdict(rare)(molOf(r)), r.smiles).toBe(true);
    const regio = await search({
      search_input: 'CC(=O)Oc1ccccc1C(=O)O',
      filter_molecules: 'true',
      filtering: 'Regioisomers',
    });
    expect(regio.statusCode).toBe(200);
    for (const r of regio.json().neighbors as Row[])
      expect(verdict(aspirin.regioisomer)(molOf(r)), r.smiles).toBe(true);
  });

  it('rejects an unknown filter with a 422 listing the allowed values', async () => {
    const res = await search({ search_input: 'CCO', filter_molecules: 'true', filtering: 'Druglike' });
    expect(res.statusCode).toBe(422);
    const d = res.json().detail[0];
    expect(d.loc).toEqual(['query', 'filtering']);
    for (const v of [
      'No solvents',
      'Lipinsky',
      'QED',
      'PAINS',
      'Substructure',
      'Superstructure',
      'Murcko scaffold hop',
      'Regioisomers',
      'No rare atoms',
    ])
      expect(d.msg).toContain(v);
  });

  it('answers the dissimilarity orderings with a clear status when no 3D path is configured', async () => {
    // They need 3D scores of every row (test/api/routes/legacy/search-3d-fusion.test.ts serves
    // them); without a 3D worker the answer says so instead of ordering by something else.
    const res = await search({ search_input: 'CCO', ordering: 'Shapesim Dissimilarity' });
    expect(res.statusCode).toBe(422);
    expect(JSON.stringify(res.json().detail)).toMatch(/3D search types are not configured/);
  });

  it('ignores filtering when filter_molecules is false', async () => {
    const plain = await rows({ search_input: painsQuery, n_neighbors: 20 });
    const ignored = await rows({
      search_input: painsQuery,
      n_neighbors: 20,
      filter_molecules: 'false',
      filtering: ['PAINS', 'Bogus'],
    });
    expect(ignored.map((r) => r.id)).toEqual(plain.map((r) => r.id));
    expect(ignored.some((r) => molOf(r).pains.length > 0)).toBe(true);
    expect(ignored[0].QED).toBeUndefined();
  });
});
