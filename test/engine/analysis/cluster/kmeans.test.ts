import { describe, expect, it } from 'vitest';
import { kmeans } from '../../../../engine/analysis/cluster/kmeans.ts';
import { matrixFromRows } from '../../../../engine/analysis/cluster/matrix.ts';
import { blobs, samePartition } from '../support/clusters.ts';
import { expectAnalysisError, ref } from '../support/reference.ts';

describe('k-means', () => {
  const table = matrixFromRows(ref.descriptor_table.rows);

  it("equals scikit-learn's Lloyd k-means from the same initial centres", () => {
    const init = matrixFromRows(ref.kmeans.init_rows.map((r) => ref.descriptor_table.rows[r]));
    const res = kmeans(table, 4, { init });
    expect(res.converged).toBe(true);
    expect(Array.from(res.labels)).toEqual(ref.kmeans.labels);
    ref.kmeans.centers.forEach((c, k) =>
      c.forEach((x, j) => expect(res.centers.values[k * table.d + j]).toBeCloseTo(x, 8)),
    );
    expect(res.inertia / ref.kmeans.inertia).toBeCloseTo(1, 10);
    // sklearn counts the final pass that finds no change as an iteration; we count centre updates
    expect(res.iterations).toBe(ref.kmeans.n_iter - 1);
  });

  it('is reproducible by seed', () => {
    const a = kmeans(table, 5, { seed: 42 });
    const b = kmeans(table, 5, { seed: 42 });
    expect(Array.from(a.labels)).toEqual(Array.from(b.labels));
    expect(a.centers.values).toEqual(b.centers.values);
  });

  it('recovers well separated clusters whatever the seed', () => {
    const { data, truth } = blobs(
      [
        [0, 0, 0],
        [10, 0, 0],
        [0, 10, 0],
        [0, 0, 10],
      ],
      25,
      1,
      7,
    );
    for (const seed of [0, 1, 2, 3, 99])
      expect(samePartition(kmeans(data, 4, { seed }).labels, truth)).toBe(true);
  });

  it('rejects k outside [1, n] and an empty input', () => {
    expectAnalysisError(() => kmeans(table, 0), 'invalid_parameter', 'n_clusters');
    expectAnalysisError(() => kmeans(table, 151), 'invalid_parameter', 'n_clusters');
    expectAnalysisError(() => matrixFromRows([]), 'empty_input');
    expectAnalysisError(() => matrixFromRows([[1, 2], [3]]), 'dimension_mismatch');
  });
});
