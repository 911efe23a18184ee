import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { sliceSet, type FingerprintSet } from '../../../../engine/analysis/fingerprints.ts';
import { matrixFromRows } from '../../../../engine/analysis/cluster/matrix.ts';
import {
  jointProbabilities,
  klDivergence,
  tsne2d,
  tsneDistances,
} from '../../../../engine/analysis/map/tsne.ts';
import { mapMethod } from '../../../../engine/analysis/map/methods.ts';
import { expectAnalysisError, ref, setOf } from '../support/reference.ts';

// scikit-learn's joint P and TSNE trustworthiness (scripts/reference/make_tsne_fixture.py).
const tref = JSON.parse(
  readFileSync(new URL('../../../fixtures/tsne-reference.json', import.meta.url), 'utf8'),
) as {
  joint_bits: { molecules: number; perplexity: number; p: number[] };
  joint_vectors: { rows: number; perplexity: number; p: number[] };
  embedding: {
    molecules: number;
    perplexity: number;
    coords: number[][];
    trustworthiness: Record<string, number>;
    kl_divergence: number;
  };
};

/**
 * sklearn.manifold.trustworthiness on precomputed distances: 1 − 2/(n k (2n − 3k − 1)) ·
 * Σ_i Σ_{j among i's k nearest in the map but not in the input} (rank_input(i, j) − k).
 */
function trustworthiness(dist: Float64Array, n: number, y: ArrayLike<number>, k: number): number {
  let penalty = 0;
  for (let i = 0; i < n; i++) {
    const others = Array.from({ length: n }, (_, j) => j).filter((j) => j !== i);
    const byInput = [...others].sort((a, b) => dist[i * n + a] - dist[i * n + b] || a - b);
    const rank = new Map(byInput.map((j, r) => [j, r + 1]));
    const d2 = (j: number) => (y[2 * i] - y[2 * j]) ** 2 + (y[2 * i + 1] - y[2 * j + 1]) ** 2;
    const byMap = [...others].sort((a, b) => d2(a) - d2(b) || a - b).slice(0, k);
    for (const j of byMap) penalty += Math.max(0, rank.get(j)! - k);
  }
  return 1 - (2 / (n * k * (2 * n - 3 * k - 1))) * penalty;
}

function upper(p: Float64Array, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out.push(p[i * n + j]);
  return out;
}

let zinc: FingerprintSet;
beforeAll(async () => {
  zinc = await setOf(ref.set_b.smiles.slice(0, tref.embedding.molecules));
});

describe('exact t-SNE', () => {
  it("calibrates the joint probabilities of Jaccard distances as scikit-learn's _joint_probabilities", () => {
    const n = tref.joint_bits.molecules;
    const p = jointProbabilities(tsneDistances({ fps: sliceSet(zinc, 0, n) }), n, tref.joint_bits.perplexity);
    const got = upper(p, n);
    expect(got.length).toBe(tref.joint_bits.p.length);
    // MinimalLib's Tanimoto is float32, RDKit's float64: agree to ~1e-6 relative
    got.forEach((v, k) =>
      expect(Math.abs(v - tref.joint_bits.p[k])).toBeLessThanOrEqual(1e-5 * tref.joint_bits.p[k] + 1e-12),
    );
  });

  it('calibrates on squared Euclidean distances for vectors, as scikit-learn does for metric="euclidean"', () => {
    const n = tref.joint_vectors.rows;
    const m = matrixFromRows(ref.descriptor_table.rows.slice(0, n));
    const p = jointProbabilities(tsneDistances({ vectors: m }), n, tref.joint_vectors.perplexity);
    upper(p, n).forEach((v, k) =>
      expect(Math.abs(v - tref.joint_vectors.p[k])).toBeLessThanOrEqual(
        1e-5 * tref.joint_vectors.p[k] + 1e-12,
      ),
    );
  });

  it("measures scikit-learn's trustworthiness on scikit-learn's own map (the metric is the same)", () => {
    const n = tref.embedding.molecules;
    const dist = tsneDistances({ fps: zinc });
    const y = tref.embedding.coords.flat();
    for (const k of [5, 10])
      expect(trustworthiness(dist, n, y, k)).toBeCloseTo(tref.embedding.trustworthiness[k], 3);
  });

  it('keeps neighbours as well as scikit-learn TSNE(method="exact") and is reproducible by seed', () => {
    const n = tref.embedding.molecules;
    const opts = { perplexity: tref.embedding.perplexity, seed: 3 };
    const a = tsne2d({ fps: zinc }, opts);
    expect(a.every(Number.isFinite)).toBe(true);
    expect(tsne2d({ fps: zinc }, opts)).toEqual(a);
    expect(tsne2d({ fps: zinc }, { ...opts, seed: 4, nIter: 300 })).not.toEqual(a);
    const dist = tsneDistances({ fps: zinc });
    // sklearn's own maps of these 300 molecules vary by ~0.02 at k = 10 from seed to seed
    // (0.957-0.989), so ours must keep neighbours within 0.01 of its seed-0 map
    for (const k of [5, 10])
      expect(trustworthiness(dist, n, a, k)).toBeGreaterThanOrEqual(tref.embedding.trustworthiness[k] - 0.01);
    // and reach about the same optimum of the objective (sklearn's kl_divergence_, recomputed here)
    const p = jointProbabilities(dist, n, tref.embedding.perplexity);
    expect(klDivergence(p, tref.embedding.coords.flat(), n)).toBeCloseTo(tref.embedding.kl_divergence, 3);
    expect(klDivergence(p, a, n)).toBeLessThanOrEqual(tref.embedding.kl_divergence * 1.1);
  });

  it('reports progress and rejects bad parameters and too few molecules', () => {
    const seen: number[] = [];
    tsne2d({ fps: sliceSet(zinc, 0, 40) }, { perplexity: 5, nIter: 300 }, (done) => seen.push(done));
    expect(seen).toEqual([50, 100, 150, 200, 250, 300]);
    const few = sliceSet(zinc, 0, 20);
    expectAnalysisError(() => tsne2d({ fps: few }, { perplexity: 30 }), 'invalid_parameter', 'perplexity');
    expectAnalysisError(() => tsne2d({ fps: zinc }, { perplexity: 2 }), 'invalid_parameter', 'perplexity');
    expectAnalysisError(() => tsne2d({ fps: zinc }, { nIter: 100 }), 'invalid_parameter', 'n_iter');
    expect(mapMethod('tsne')).toBe('tsne');
    expectAnalysisError(() => mapMethod('mds'), 'unknown_metric', 'visualisation_method');
  });
});
