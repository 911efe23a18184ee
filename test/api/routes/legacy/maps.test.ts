import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReferenceCatalog } from '../../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../../support/api-harness.ts';
import { analysisRef, expect422, getWith, type Params } from './support/analysis.ts';

let h: ApiHarness;

beforeAll(async () => {
  const a = await buildReferenceCatalog({ id: 'refcat' });
  h = await startApiHarness([a.catalog], { analysis: true });
});
afterAll(async () => h?.close());

const get = (path: string, params: Params) => getWith(h, path, params);
const drugs = analysisRef.set_a.smiles;

function maxAbsDiff(got: number[][], want: number[][]): number {
  let m = 0;
  want.forEach((row, i) => row.forEach((w, j) => (m = Math.max(m, Math.abs(got[i][j] - w)))));
  return m;
}

describe('GET /visualize', () => {
  it('PCA (the default) equals scikit-learn PCA(svd_solver="full") under the sign rule', async () => {
    const res = await get('/visualize', { search_input: drugs });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.visualisation_method).toBe('pca');
    expect(maxAbsDiff(body.coordinates, analysisRef.pca_bits.coords)).toBeLessThan(1e-8);
    body.explained_variance_ratio.forEach((v: number, i: number) =>
      expect(v / analysisRef.pca_bits.explained_variance_ratio[i]).toBeCloseTo(1, 10),
    );
  });

  it('the /visualise alias answers the same; a bad row is null with its error', async () => {
    const list = [...drugs.slice(0, 30), 'C1CC'];
    const a = (await get('/visualize', { search_input: list })).json();
    const b = (await get('/visualise', { search_input: list })).json();
    expect(b.coordinates).toEqual(a.coordinates);
    expect(a.coordinates[30]).toBeNull();
    expect(a.errors[30]).toMatch(/unparsable/);
  });

  it('UMAP is seeded: the same seed gives the same map, another seed another', async () => {
    const p = { search_input: drugs.slice(0, 60), visualisation_method: 'umap', n_epochs: 50 };
    const a = (await get('/visualize', { ...p, seed: 1 })).json();
    const b = (await get('/visualize', { ...p, seed: 1 })).json();
    const c = (await get('/visualize', { ...p, seed: 2 })).json();
    expect(a.coordinates).toHaveLength(60);
    expect(a.coordinates).toEqual(b.coordinates);
    expect(a.coordinates).not.toEqual(c.coordinates);
  });

  it('t-SNE is seeded and keeps Tanimoto neighbours together; a bad row is null', async () => {
    const p = { search_input: [...drugs.slice(0, 60), 'C1CC'], visualisation_method: 'tsne', perplexity: 10 };
    const a = await get('/visualize', { ...p, seed: 1, n_iter: 400 });
    expect(a.statusCode).toBe(200);
    const body = a.json();
    expect(body.visualisation_method).toBe('tsne');
    expect(body.coordinates).toHaveLength(61);
    expect(body.coordinates[60]).toBeNull();
    expect((await get('/visualize', { ...p, seed: 1, n_iter: 400 })).json().coordinates).toEqual(
      body.coordinates,
    );
    expect((await get('/visualize', { ...p, seed: 2, n_iter: 400 })).json().coordinates).not.toEqual(
      body.coordinates,
    );
    // each molecule's map neighbour is much nearer by Tanimoto than a random molecule is
    const sims = analysisRef.similarity.values;
    let nearer = 0;
    for (let q = 0; q < analysisRef.similarity.queries; q++) {
      const xy = body.coordinates as number[][];
      const d2 = (j: number) => (xy[q][0] - xy[j][0]) ** 2 + (xy[q][1] - xy[j][1]) ** 2;
      const nn = Array.from({ length: 60 }, (_, j) => j)
        .filter((j) => j !== q)
        .sort((x, y) => d2(x) - d2(y))[0];
      const mean = sims[q].slice(0, 60).reduce((s, v, j) => s + (j === q ? 0 : v), 0) / 59;
      if (sims[q][nn] > mean) nearer++;
    }
    expect(nearer).toBeGreaterThanOrEqual(Math.ceil(0.8 * analysisRef.similarity.queries));
  });

  it('refuses too few or too many molecules, bad UMAP / t-SNE parameters, both or neither input', async () => {
    const mds = await get('/visualize', { search_input: drugs.slice(0, 10), visualisation_method: 'mds' });
    expect422(mds, 'visualisation_method', 'value_error.unknown_metric');
    expect(JSON.stringify(mds.json())).toContain('pca, umap, tsne');
    const tsne = { search_input: drugs.slice(0, 20), visualisation_method: 'tsne' };
    expect422(await get('/visualize', tsne), 'perplexity');
    expect422(await get('/visualize', { ...tsne, perplexity: 5, n_iter: 100 }), 'n_iter');
    expect422(
      await get('/visualize', {
        search_input: Array.from({ length: 501 }, () => 'C'),
        visualisation_method: 'tsne',
      }),
      'search_input',
    );
    expect422(await get('/visualize', { search_input: ['CCO', 'CCN'] }), 'search_input');
    const many = Array.from({ length: 1001 }, () => 'C');
    expect422(await get('/visualize', { search_input: many, visualisation_method: 'umap' }), 'search_input');
    const small = { search_input: drugs.slice(0, 10), visualisation_method: 'umap' };
    expect422(await get('/visualize', { ...small, n_neighbors: 15 }), 'n_neighbors');
    expect422(await get('/visualize', { ...small, n_neighbors: 3, min_dist: 2 }), 'min_dist');
    expect422(await get('/visualize', {}), 'search_input');
    expect422(await get('/visualize', { search_input: 'CCO', job_name: 'job_x' }), 'search_input');
    expect422(await get('/visualize', { job_name: 'job_x' }), 'job_name');
    expect422(
      await get('/visualize', { search_input: drugs.slice(0, 5), search_type: 'espsim_shape' }),
      'search_type',
    );
  });
});

describe('GET /visualize_file', () => {
  it('writes smiles,x,y of an uploaded file (PCA equal to scikit-learn)', async () => {
    await h.objects!.put(
      `users/${h.accountId}/files/drugs.smi`,
      drugs.map((s, i) => `${s} d${i}`).join('\n'),
    );
    const res = await get('/visualize_file', { input_file: 'drugs.smi' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'SUCCESS',
      count: drugs.length,
      output_files: ['visualization_coords/drugs_pca_coords.csv'],
    });
    const csv = Buffer.from(
      await h.objects!.getBytes(`users/${h.accountId}/files/visualization_coords/drugs_pca_coords.csv`),
    )
      .toString('utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).toBe('smiles,canonical_smiles,x,y,error');
    const coords = csv.slice(1).map((l) => l.split(',').slice(-3, -1).map(Number));
    expect(maxAbsDiff(coords, analysisRef.pca_bits.coords)).toBeLessThan(1e-8);
  });

  it('names input_file when the file has too few valid molecules', async () => {
    await h.objects!.put(`users/${h.accountId}/files/two.csv`, 'SMILES\nCCO\nCCN\nnot-a-smiles\n');
    const res = await get('/visualize_file', { input_file: 'two.csv' });
    expect422(res, 'input_file');
    expect(JSON.stringify(res.json())).toMatch(/at least 3 molecules/);
  });

  it('refuses path escapes and unknown methods', async () => {
    expect422(
      await get('/visualize_file', { input_file: 'a/../../b.csv' }),
      'input_file',
      'value_error.path',
    );
    expect422(await get('/visualize_file', { input_file: 'drugs.smi', dest_folder: 'C:/x' }), 'dest_folder');
    expect422(
      await get('/visualize_file', { input_file: 'drugs.smi', visualisation_method: 'mds' }),
      'visualisation_method',
    );
  });
});
