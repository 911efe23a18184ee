import { beforeAll, describe, expect, it } from 'vitest';
import {
  euclideanDistances,
  kmedoids,
  type DistanceMatrix,
} from '../../../../engine/analysis/cluster/kmedoids.ts';
import { similarityMatrix } from '../../../../engine/analysis/similarity/operations.ts';
import { MORGAN_TANIMOTO } from '../../../../engine/analysis/similarity/metrics.ts';
import type { FingerprintSet } from '../../../../engine/analysis/fingerprints.ts';
import { blobs, samePartition } from '../support/clusters.ts';
import { expectAnalysisError, ref, setOf } from '../support/reference.ts';

function totalDeviation(dist: DistanceMatrix, medoids: ArrayLike<number>): number {
  let s = 0;
  for (let o = 0; o < dist.n; o++) {
    let best = Infinity;
    for (let m = 0; m < medoids.length; m++) best = Math.min(best, dist.values[medoids[m] * dist.n + o]);
    s += best;
  }
  return s;
}

let drugs: FingerprintSet;
beforeAll(async () => {
  drugs = await setOf(ref.set_a.smiles);
});

describe('k-medoids', () => {
  it('recovers well separated clusters with a medoid inside each', () => {
    const { data, truth } = blobs(
      [
        [0, 0],
        [20, 0],
        [0, 20],
      ],
      20,
      2,
      3,
    );
    const dist = euclideanDistances(data);
    const res = kmedoids(dist, 3, { seed: 1 });
    expect(samePartition(res.labels, truth)).toBe(true);
    expect(new Set(Array.from(res.medoids, (m) => truth[m])).size).toBe(3);
  });

  it('stops at a local optimum: no single medoid swap lowers the total deviation', () => {
    const dist = tanimotoDistances(drugs, 60);
    const res = kmedoids(dist, 5, { seed: 11 });
    expect(res.cost).toBeCloseTo(totalDeviation(dist, res.medoids), 6);
    for (let m = 0; m < 5; m++)
      for (let x = 0; x < dist.n; x++) {
        if (res.medoids.includes(x)) continue;
        const trial = Int32Array.from(res.medoids);
        trial[m] = x;
        expect(totalDeviation(dist, trial)).toBeGreaterThanOrEqual(res.cost - 1e-9);
      }
  });

  it('with k = 1 picks the point of least total distance', () => {
    const dist = tanimotoDistances(drugs, 40);
    const res = kmedoids(dist, 1);
    const sums = Array.from({ length: 40 }, (_, i) => totalDeviation(dist, [i]));
    expect(res.cost).toBeCloseTo(Math.min(...sums), 9);
    expect(res.medoids[0]).toBe(sums.indexOf(Math.min(...sums)));
  });

  it('is reproducible by seed on Tanimoto distances', () => {
    const dist = tanimotoDistances(drugs, 150);
    const a = kmedoids(dist, 8, { seed: 5 });
    const b = kmedoids(dist, 8, { seed: 5 });
    expect(a).toEqual(b);
  });

  it('rejects k outside [1, n] and a distance matrix of the wrong size', () => {
    const dist = tanimotoDistances(drugs, 10);
    expectAnalysisError(() => kmedoids(dist, 11), 'invalid_parameter', 'n_clusters');
    expectAnalysisError(() => kmedoids({ n: 3, values: new Float32Array(4) }, 1), 'dimension_mismatch');
    expectAnalysisError(() => kmedoids(dist, 2, { init: Int32Array.of(3, 3) }), 'invalid_parameter', 'init');
  });
});

/** 1 - Tanimoto of the first n molecules, from the matrix kernel. */
function tanimotoDistances(set: FingerprintSet, n: number): DistanceMatrix {
  const sub = { n, fps: set.fps.subarray(0, n * 256), popcounts: set.popcounts.subarray(0, n) };
  const m = similarityMatrix(MORGAN_TANIMOTO, sub, sub);
  return { n, values: m.values.map((s) => 1 - s) };
}
