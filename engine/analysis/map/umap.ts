/**
 * UMAP 2D maps through umap-js (PAIR-code; the only JavaScript UMAP in wide use), reproducible by
 * seed. The k nearest neighbours are computed here, exactly, and handed to umap-js
 * (setPrecomputedKNN), so its approximate NN-descent on dense number arrays never runs:
 * fingerprints use Jaccard distance 1 - Tanimoto (the usual UMAP metric for bit fingerprints)
 * from the WebAssembly matrix kernel, vectors Euclidean distance. Neighbour order: distance
 * ascending, then index; every point is its own first neighbour, as in UMAP.
 */
import { UMAP } from 'umap-js';
import { createPrng } from '../../selection/prng.ts';
import { AnalysisError, checkInteger, checkNumber, checkLimit } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { sliceSet, type FingerprintSet } from '../fingerprints.ts';
import { tanimotoMatrixInto } from '../similarity/tanimoto-matrix.ts';
import { uniform01, type Matrix } from '../cluster/matrix.ts';
import { sparseFromMatrix } from './pca.ts';

export interface UmapOptions {
  nNeighbors?: number;
  minDist?: number;
  seed?: number;
  /** Optimisation epochs (default 200, umap-learn's choice for large data; umap-js would use 500 below 2,500 points). */
  nEpochs?: number;
}

/** Exact k nearest neighbours (self included) as umap-js takes them: indices and distances per point. */
export interface Knn {
  indices: number[][];
  distances: number[][];
}

/** The k smallest of dist(0..n-1), ascending, ties by index: insertion into a sorted list of k (k is small). */
function topK(n: number, k: number, dist: (j: number) => number): { idx: number[]; d: number[] } {
  const idx: number[] = [];
  const d: number[] = [];
  for (let j = 0; j < n; j++) {
    const x = dist(j);
    if (idx.length === k && x >= d[k - 1]) continue;
    let at = idx.length === k ? k - 1 : idx.length;
    if (idx.length < k) {
      idx.push(j);
      d.push(x);
    }
    // shift larger entries right; equal distances keep the earlier (lower) index first
    while (at > 0 && d[at - 1] > x) {
      idx[at] = idx[at - 1];
      d[at] = d[at - 1];
      at--;
    }
    idx[at] = j;
    d[at] = x;
  }
  return { idx, d };
}

/** Exact Jaccard (1 - Tanimoto) k-NN of fingerprints, in chunks of rows through the matrix kernel. */
export function fingerprintKnn(set: FingerprintSet, k: number): Knn {
  const out: Knn = { indices: [], distances: [] };
  const chunk = Math.max(1, Math.floor(8_000_000 / Math.max(1, set.n)));
  for (let r0 = 0; r0 < set.n; r0 += chunk) {
    const r1 = Math.min(set.n, r0 + chunk);
    const sims = new Float32Array((r1 - r0) * set.n);
    tanimotoMatrixInto(sliceSet(set, r0, r1), set, sims);
    for (let i = r0; i < r1; i++) {
      const row = (i - r0) * set.n;
      // self first at distance 0, whatever duplicates exist
      const { idx, d } = topK(set.n, k, (j) => (j === i ? -1 : 1 - sims[row + j]));
      out.indices.push(idx);
      out.distances.push(d.map((x) => Math.max(0, x)));
    }
  }
  return out;
}

/**
 * Exact Euclidean k-NN of the rows of a matrix. Embeddings such as Morgan counts are mostly zeros,
 * so distances are |x|² + |y|² − 2 x·y with the dot product over y's non-zero entries against x
 * scattered densely: O(n² · non-zeros per row) instead of O(n² · d).
 */
export function vectorKnn(m: Matrix, k: number): Knn {
  const x = sparseFromMatrix(m);
  const norms = new Float64Array(m.n);
  for (let i = 0; i < m.n; i++)
    for (let p = x.offsets[i]; p < x.offsets[i + 1]; p++) norms[i] += x.values[p] * x.values[p];
  const dense = new Float64Array(m.d);
  const out: Knn = { indices: [], distances: [] };
  for (let i = 0; i < m.n; i++) {
    for (let p = x.offsets[i]; p < x.offsets[i + 1]; p++) dense[x.indices[p]] = x.values[p];
    const { idx, d } = topK(m.n, k, (j) => {
      if (j === i) return -1;
      let dot = 0;
      for (let p = x.offsets[j]; p < x.offsets[j + 1]; p++) dot += dense[x.indices[p]] * x.values[p];
      return Math.sqrt(Math.max(0, norms[i] + norms[j] - 2 * dot));
    });
    for (let p = x.offsets[i]; p < x.offsets[i + 1]; p++) dense[x.indices[p]] = 0;
    out.indices.push(idx);
    out.distances.push(d.map((v) => Math.max(0, v)));
  }
  return out;
}

/**
 * UMAP coordinates (n × 2, row-major) of fingerprints or vectors. Throws AnalysisError when there
 * are not more points than neighbours, or parameters are out of range.
 */
export function umap2d(
  input: { fps?: FingerprintSet; vectors?: Matrix },
  opts: UmapOptions = {},
): Float64Array {
  const n = input.fps?.n ?? input.vectors?.n ?? 0;
  const nNeighbors = opts.nNeighbors ?? 15;
  checkInteger('n_neighbors', nNeighbors, 2, 100);
  const minDist = opts.minDist ?? 0.1;
  checkNumber('min_dist', minDist, 0, 1);
  checkLimit('search_input', n, ANALYSIS_LIMITS.maxUmapMolecules, 'molecules for a UMAP map');
  if (n <= nNeighbors)
    throw new AnalysisError(
      'invalid_parameter',
      'n_neighbors',
      `UMAP needs more molecules (${n}) than neighbours (${nNeighbors})`,
    );
  if (opts.nEpochs !== undefined) checkInteger('n_epochs', opts.nEpochs, 1, 5000);
  const knn = input.fps ? fingerprintKnn(input.fps, nNeighbors) : vectorKnn(input.vectors!, nNeighbors);
  const next = createPrng(opts.seed ?? 0);
  const model = new UMAP({
    nComponents: 2,
    nNeighbors,
    minDist,
    nEpochs: opts.nEpochs ?? 200,
    random: () => uniform01(next),
  });
  model.setPrecomputedKNN(knn.indices, knn.distances);
  // With precomputed neighbours umap-js reads only the number of points from X.
  const placeholder = Array.from({ length: n }, (_, i) => [i]);
  const embedding = model.fit(placeholder);
  const coords = new Float64Array(n * 2);
  embedding.forEach((p, i) => {
    coords[i * 2] = p[0];
    coords[i * 2 + 1] = p[1];
  });
  return coords;
}
