import { beforeAll, describe, expect, it } from 'vitest';
import { sliceSet, type FingerprintSet } from '../../../../engine/analysis/fingerprints.ts';
import { fingerprintKnn, umap2d, vectorKnn } from '../../../../engine/analysis/map/umap.ts';
import { matrixFromRows, squaredDistance } from '../../../../engine/analysis/cluster/matrix.ts';
import { mapMethod } from '../../../../engine/analysis/map/methods.ts';
import { expectAnalysisError, ref, setOf } from '../support/reference.ts';

let zinc: FingerprintSet;
let drugs: FingerprintSet;
beforeAll(async () => {
  zinc = await setOf(ref.set_b.smiles);
  drugs = await setOf(ref.set_a.smiles);
});

describe('UMAP 2D map', () => {
  it('feeds UMAP the exact Jaccard neighbours: 1 - RDKit Tanimoto, nearest first, self first', () => {
    const knn = fingerprintKnn(drugs, 6);
    for (let q = 0; q < ref.similarity.queries; q++) {
      expect(knn.indices[q][0]).toBe(q);
      const want = ref.similarity.values[q]
        .map((s, j) => ({ d: j === q ? -1 : 1 - Math.fround(s), j }))
        .sort((a, b) => a.d - b.d || a.j - b.j)
        .slice(0, 6);
      expect(knn.indices[q]).toEqual(want.map((w) => w.j));
      knn.distances[q].slice(1).forEach((d, k) => expect(d).toBeCloseTo(want[k + 1].d, 6));
    }
  });

  it('feeds UMAP the exact Euclidean neighbours of vectors (sparse dot products equal the direct sums)', () => {
    const m = matrixFromRows(ref.descriptor_table.rows.slice(0, 60));
    const knn = vectorKnn(m, 5);
    for (let i = 0; i < m.n; i++) {
      const want = Array.from({ length: m.n }, (_, j) => ({
        j,
        d: j === i ? -1 : squaredDistance(m, i, m, j),
      }))
        .sort((a, b) => a.d - b.d || a.j - b.j)
        .slice(0, 5);
      expect(knn.indices[i]).toEqual(want.map((w) => w.j));
      knn.distances[i].slice(1).forEach((d, k) => expect(d).toBeCloseTo(Math.sqrt(want[k + 1].d), 6));
    }
    const coords = umap2d({ vectors: m }, { seed: 1, nNeighbors: 5, nEpochs: 50 });
    expect(coords.length).toBe(120);
    expect(coords.every(Number.isFinite)).toBe(true);
  });

  it('is reproducible by seed and keeps Tanimoto neighbours together', () => {
    const set = sliceSet(zinc, 0, 300);
    const a = umap2d({ fps: set }, { seed: 7, nEpochs: 200 });
    const b = umap2d({ fps: set }, { seed: 7, nEpochs: 200 });
    expect(a).toEqual(b);
    expect(a.every(Number.isFinite)).toBe(true);
    // of each molecule's 10 nearest map neighbours, how many are among its 10 nearest by Tanimoto
    const knn = fingerprintKnn(set, 11);
    let kept = 0;
    for (let i = 0; i < set.n; i++) {
      const byMap = Array.from({ length: set.n }, (_, j) => j)
        .filter((j) => j !== i)
        .sort(
          (x, y) =>
            Math.hypot(a[x * 2] - a[i * 2], a[x * 2 + 1] - a[i * 2 + 1]) -
            Math.hypot(a[y * 2] - a[i * 2], a[y * 2 + 1] - a[i * 2 + 1]),
        )
        .slice(0, 10);
      const near = new Set(knn.indices[i].slice(1));
      kept += byMap.filter((j) => near.has(j)).length;
    }
    // random placement would keep about 10 / 299 of them
    expect(kept / (set.n * 10)).toBeGreaterThan(0.3);
  });

  it('rejects too few molecules for the neighbourhood and an unknown map method', () => {
    expectAnalysisError(() => umap2d({ fps: sliceSet(zinc, 0, 10) }), 'invalid_parameter', 'n_neighbors');
    expectAnalysisError(() => mapMethod('mds'), 'unknown_metric', 'visualisation_method');
    for (const m of ['pca', 'umap', 'tsne']) expect(mapMethod(m)).toBe(m);
  });
});
