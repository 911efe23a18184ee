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

const get = (path: string, params: Params, key?: string) => getWith(h, path, params, key);
const zinc = analysisRef.set_b.smiles;
const drugs = analysisRef.set_a.smiles;

describe('GET /cluster', () => {
  it("equals RDKit's Butina.ClusterData clusters, cluster and member order included", async () => {
    for (const { threshold, clusters } of analysisRef.butina) {
      const res = await get('/cluster', { search_input: zinc, method: 'butina', threshold });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.clusters.map((c: { members: number[] }) => c.members)).toEqual(clusters);
      expect(body.n_clusters).toBe(clusters.length);
      expect(body.clustering_id).toMatch(/^clu_[0-9A-Z]{26}$/);
      clusters.forEach((members, c) => {
        expect(body.clusters[c].representative.index).toBe(members[0]);
        for (const i of members) expect(body.labels[i]).toBe(c);
      });
    }
  });

  it('leaves unparsable rows out (label null, their error) and keeps input indices', async () => {
    const body = (
      await get('/cluster', { search_input: ['CCO', 'C1CC', 'CCN', 'c1ccccc1'], threshold: 0.8 })
    ).json();
    expect(body.labels[1]).toBeNull();
    expect(body.errors[1]).toMatch(/unparsable/);
    const members = body.clusters.flatMap((c: { members: number[] }) => c.members).sort();
    expect(members).toEqual([0, 2, 3]);
  });

  it('k-means and k-medoids: same seed same clusters, every molecule in one cluster of size > 0', async () => {
    const cases: (Params & { n_clusters: number })[] = [
      { method: 'kmeans', n_clusters: 5, seed: 7 },
      { method: 'kmeans', n_clusters: 5, seed: 7, embedding_type: 'counts' },
      { method: 'kmedoids', n_clusters: 6, seed: 3 },
      { method: 'kmedoids', n_clusters: 6, seed: 3, metric: 'euclidean' },
    ];
    for (const params of cases) {
      const a = (await get('/cluster', { search_input: drugs, ...params })).json();
      const b = (await get('/cluster', { search_input: drugs, ...params })).json();
      expect(a.labels).toEqual(b.labels);
      expect(a.clustering_id).not.toBe(b.clustering_id);
      expect(a.n_clusters).toBe(params.n_clusters);
      expect(a.labels.every((l: number) => l >= 0 && l < params.n_clusters)).toBe(true);
      for (const c of a.clusters) {
        expect(c.size).toBeGreaterThan(0);
        expect(c.members).toContain(c.representative.index);
      }
    }
  });

  it('refuses bad parameters with a 422 naming each', async () => {
    expect422(await get('/cluster', {}), 'search_input');
    expect422(await get('/cluster', { search_input: 'CCO', method: 'ward' }), 'method');
    expect422(await get('/cluster', { search_input: 'CCO', threshold: 1.5 }), 'threshold');
    expect422(
      await get('/cluster', { search_input: ['CCO', 'CCN'], method: 'kmeans', n_clusters: 3 }),
      'n_clusters',
    );
    expect422(await get('/cluster', { search_input: 'CCO', method: 'kmedoids', metric: 'cosine' }), 'metric');
    expect422(await get('/cluster', { search_input: 'CCO', search_type: 'espsim_shape' }), 'search_type');
    const big = Array.from({ length: 2001 }, () => 'C');
    expect422(await get('/cluster', { search_input: big }), 'search_input', 'value_error.too_large');
  });
});

describe('GET /nearest_cluster', () => {
  it('puts each Butina centroid in its own cluster with similarity 1, and far molecules outside', async () => {
    const made = (await get('/cluster', { search_input: zinc, threshold: 0.4 })).json();
    const reps = made.clusters
      .slice(0, 5)
      .map((c: { representative: { smiles: string } }) => c.representative.smiles);
    const res = await get('/nearest_cluster', {
      clustering_id: made.clustering_id,
      search_input: [...reps, 'C1CC', 'FC(F)(F)C(F)(F)C(F)(F)C(F)(F)C(F)(F)S(=O)(=O)O'],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.cluster.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
    expect(body.similarity.slice(0, 5)).toEqual([1, 1, 1, 1, 1]);
    expect(body.within.slice(0, 5)).toEqual([true, true, true, true, true]);
    expect(body.cluster[5]).toBeNull();
    expect(body.errors[5]).toBeTruthy();
    expect(body.within[6]).toBe(body.similarity[6] >= 0.6);
  });

  it('places by Euclidean distance for a k-means clustering', async () => {
    const made = (await get('/cluster', { search_input: drugs, method: 'kmeans', n_clusters: 4 })).json();
    const body = (
      await get('/nearest_cluster', { clustering_id: made.clustering_id, search_input: drugs })
    ).json();
    expect(body.distance).toHaveLength(drugs.length);
    // Lloyd's fixed point: every molecule is nearest to the centre of its own cluster.
    expect(body.cluster).toEqual(made.labels);
  });

  it("is a 404 for an unknown or another user's clustering, a 422 for an empty list", async () => {
    const made = (await get('/cluster', { search_input: ['CCO', 'CCN'] })).json();
    const other = await h.store.accounts.createApiKey({ user: 'someone-else', tier: 'premium' });
    const res = await get(
      '/nearest_cluster',
      { clustering_id: made.clustering_id, search_input: 'CCO' },
      other.key,
    );
    expect(res.statusCode).toBe(404);
    expect(
      (await get('/nearest_cluster', { clustering_id: 'clu_nope', search_input: 'CCO' })).statusCode,
    ).toBe(404);
    expect422(await get('/nearest_cluster', { clustering_id: made.clustering_id }), 'search_input');
  });
});
