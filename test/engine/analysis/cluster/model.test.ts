import { beforeAll, describe, expect, it } from 'vitest';
import { butina } from '../../../../engine/analysis/cluster/butina.ts';
import { kmeans } from '../../../../engine/analysis/cluster/kmeans.ts';
import { matrixFromRows } from '../../../../engine/analysis/cluster/matrix.ts';
import {
  CLUSTERING_FORMAT,
  nearestCluster,
  parseClustering,
  serializeClustering,
  type ClusteringModel,
} from '../../../../engine/analysis/cluster/model.ts';
import {
  fromPacked,
  rowOf,
  sliceSet,
  type FingerprintSet,
} from '../../../../engine/analysis/fingerprints.ts';
import { batchSimilarity } from '../../../../engine/analysis/similarity/operations.ts';
import { MORGAN_TANIMOTO } from '../../../../engine/analysis/similarity/metrics.ts';
import { expectAnalysisError, ref, setOf } from '../support/reference.ts';

let zinc: FingerprintSet;
let model: ClusteringModel;
let clusters: number[][];
beforeAll(async () => {
  zinc = await setOf(ref.set_b.smiles);
  clusters = butina(zinc, 0.4);
  const reps = new Uint8Array(clusters.length * 256);
  clusters.forEach((c, k) => reps.set(rowOf(zinc, c[0]), k * 256));
  model = {
    format: CLUSTERING_FORMAT,
    method: 'butina',
    search_type: 'morgan',
    metric: 'tanimoto',
    threshold: 0.4,
    clusters: clusters.map((c) => ({ size: c.length, representative: { smiles: ref.set_b.smiles[c[0]] } })),
    fingerprints: fromPacked(reps),
  };
});

describe('nearest cluster against a stored Butina clustering', () => {
  it('places each centroid in its own cluster and every member within the threshold of its best centroid', () => {
    const place = nearestCluster(model, { fps: zinc });
    clusters.forEach((c, k) => {
      // a centroid is identical to its own representative (duplicates resolve to the lowest cluster)
      expect(place.score[c[0]]).toBe(1);
      expect(place.cluster[c[0]]).toBeLessThanOrEqual(k);
      for (const member of c) {
        expect(place.within[member]).toBe(1);
        const toOwn = batchSimilarity(
          MORGAN_TANIMOTO,
          sliceSet(zinc, member, member + 1),
          sliceSet(model.fingerprints!, k, k + 1),
        )[0];
        expect(place.score[member]).toBeGreaterThanOrEqual(toOwn - 1e-7);
      }
    });
  });

  it('marks molecules farther than the threshold from every centroid as outside', async () => {
    const far = await setOf(['OCCN(CCO)CCO', 'c1ccc2c(c1)c1ccccc1n2C']);
    const place = nearestCluster(model, { fps: far });
    for (let i = 0; i < 2; i++) expect(place.within[i]).toBe(place.score[i] >= 0.6 ? 1 : 0);
  });

  it('survives serialisation unchanged', () => {
    const back = parseClustering(serializeClustering(model));
    expect(back.fingerprints!.fps).toEqual(model.fingerprints!.fps);
    expect(nearestCluster(back, { fps: zinc })).toEqual(nearestCluster(model, { fps: zinc }));
  });
});

describe('nearest cluster against a stored k-means clustering', () => {
  it('puts every training point in its own cluster (Lloyd’s fixed point) after a round trip', () => {
    const table = matrixFromRows(ref.descriptor_table.rows);
    const res = kmeans(table, 4, { seed: 3 });
    const km: ClusteringModel = {
      format: CLUSTERING_FORMAT,
      method: 'kmeans',
      search_type: 'morgan',
      metric: 'euclidean',
      clusters: Array.from({ length: 4 }, () => ({ size: 1, representative: { smiles: 'C' } })),
      centers: res.centers,
    };
    const back = parseClustering(serializeClustering(km));
    expect(Array.from(nearestCluster(back, { vectors: table }).cluster)).toEqual(Array.from(res.labels));
    expectAnalysisError(
      () => nearestCluster(back, { vectors: matrixFromRows([[1, 2]]) }),
      'dimension_mismatch',
    );
  });
});

describe('stored clustering validation', () => {
  it.each([
    ['not json', '{'],
    ['wrong format', JSON.stringify({ format: 'x' })],
    [
      'truncated fingerprints',
      JSON.stringify({
        format: CLUSTERING_FORMAT,
        method: 'butina',
        search_type: 'morgan',
        metric: 'tanimoto',
        threshold: 0.4,
        clusters: [{ size: 1, representative: { smiles: 'C' } }],
        fingerprints_b64: 'AAAA',
      }),
    ],
    [
      'butina without threshold',
      JSON.stringify({
        format: CLUSTERING_FORMAT,
        method: 'butina',
        search_type: 'morgan',
        metric: 'tanimoto',
        clusters: [{ size: 1, representative: { smiles: 'C' } }],
      }),
    ],
  ])('rejects %s as invalid_model', (_name, text) => {
    expectAnalysisError(() => parseClustering(text), 'invalid_model', 'clustering');
  });
});
