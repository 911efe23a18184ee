import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { pca2 } from '../../../web/src/charts/pca.ts';

/** scikit-learn's PCA of 150 Python-RDKit Morgan fingerprints (scripts/reference/make_pca_fixture.py). */
const ref = JSON.parse(
  await readFile(new URL('../../fixtures/pca-reference.json', import.meta.url), 'utf8'),
) as {
  dims: number;
  on_bits: number[][];
  x: number[];
  y: number[];
  explained: [number, number];
};

describe('the in-browser PCA of fingerprints', () => {
  it('gives the scores and explained variance of scikit-learn PCA, signs by the largest loading', () => {
    const r = pca2(ref.on_bits, ref.dims);
    r.x.forEach((v, i) => expect(v).toBeCloseTo(ref.x[i], 7));
    r.y.forEach((v, i) => expect(v).toBeCloseTo(ref.y[i], 7));
    expect(r.explained[0]).toBeCloseTo(ref.explained[0], 9);
    expect(r.explained[1]).toBeCloseTo(ref.explained[1], 9);
  });

  it('gives the same map for the same molecules in another order, point for point', () => {
    const order = ref.on_bits.map((_, i) => i).reverse();
    const r = pca2(
      order.map((i) => ref.on_bits[i]),
      ref.dims,
    );
    order.forEach((i, k) => {
      expect(r.x[k]).toBeCloseTo(ref.x[i], 7);
      expect(r.y[k]).toBeCloseTo(ref.y[i], 7);
    });
  });

  it('maps fewer than two molecules, or identical ones, to the origin without failing', () => {
    expect(Array.from(pca2([[1, 2, 3]], 8).x)).toEqual([0]);
    const same = pca2(
      [
        [1, 2],
        [1, 2],
        [1, 2],
      ],
      8,
    );
    expect(Array.from(same.x)).toEqual([0, 0, 0]);
    expect(same.explained).toEqual([0, 0]);
  });
});
