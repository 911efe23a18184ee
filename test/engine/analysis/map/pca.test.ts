import { beforeAll, describe, expect, it } from 'vitest';
import { matrixFromRows } from '../../../../engine/analysis/cluster/matrix.ts';
import { fingerprintSet, rowOf, type FingerprintSet } from '../../../../engine/analysis/fingerprints.ts';
import { pca, sparseFromFingerprints, sparseFromMatrix } from '../../../../engine/analysis/map/pca.ts';
import { expectAnalysisError, ref, setOf, type PcaReference } from '../support/reference.ts';

function maxAbsDiff(got: ArrayLike<number>, want: number[]): number {
  let m = 0;
  want.forEach((w, i) => (m = Math.max(m, Math.abs(got[i] - w))));
  return m;
}

function expectEqualPca(res: ReturnType<typeof pca>, want: PcaReference, tol: number): void {
  expect(maxAbsDiff(res.coords, want.coords.flat())).toBeLessThan(tol);
  expect(maxAbsDiff(res.components, want.components.flat())).toBeLessThan(tol);
  res.explainedVariance.forEach((v, i) => expect(v / want.explained_variance[i]).toBeCloseTo(1, 10));
  res.explainedVarianceRatio.forEach((v, i) =>
    expect(v / want.explained_variance_ratio[i]).toBeCloseTo(1, 10),
  );
}

let drugs: FingerprintSet;
beforeAll(async () => {
  drugs = await setOf(ref.set_a.smiles);
});

describe('PCA 2D map', () => {
  it('of Morgan bits equals scikit-learn PCA(svd_solver="full") under the shared sign rule', () => {
    expectEqualPca(pca(sparseFromFingerprints(drugs)), ref.pca_bits, 1e-8);
  });

  it('of a descriptor table equals scikit-learn PCA under the shared sign rule', () => {
    expectEqualPca(
      pca(sparseFromMatrix(matrixFromRows(ref.descriptor_table.rows))),
      ref.pca_descriptors,
      1e-8,
    );
  });

  it('does not depend on row order: permuted rows get the permuted coordinates', () => {
    const order = Array.from({ length: drugs.n }, (_, i) => (i * 37) % drugs.n);
    const shuffled = fingerprintSet(order.map((i) => rowOf(drugs, i)));
    const a = pca(sparseFromFingerprints(drugs));
    const b = pca(sparseFromFingerprints(shuffled));
    order.forEach((src, dst) => {
      expect(b.coords[dst * 2]).toBeCloseTo(a.coords[src * 2], 8);
      expect(b.coords[dst * 2 + 1]).toBeCloseTo(a.coords[src * 2 + 1], 8);
    });
  });

  it('needs at least three molecules', () => {
    expectAnalysisError(
      () =>
        pca(
          sparseFromMatrix(
            matrixFromRows([
              [1, 2],
              [3, 4],
            ]),
          ),
        ),
      'empty_input',
      'search_input',
    );
  });
});
