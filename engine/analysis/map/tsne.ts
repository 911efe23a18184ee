/**
 * Exact t-SNE to 2 dimensions (van der Maaten & Hinton 2008), written here because no maintained
 * npm package offers it under a permissive licence: tsne-js and @keckelt/tsne last changed in
 * 2016/2018 (republished unchanged), bhtsne shells out to a C binary, and druidjs (maintained) is
 * LGPL-3.0. It follows scikit-learn's `TSNE(method="exact")` step for step, so its parameters
 * mean the same: the perplexity calibration of `_binary_search_perplexity` (tolerance 1e-5, 100
 * steps), symmetrised joint P, Student-t Q with one degree of freedom, gradient descent with
 * gains (+0.2 / ×0.8, floor 0.01), 250 exploration iterations at momentum 0.5 with early
 * exaggeration 12, then momentum 0.8 from rest (updates and gains reset), learning rate "auto" = max(n / 12 / 4, 50), and "random"
 * initialisation N(0, 1e-4²) from the seed. It runs all `nIter` iterations (no early stop), so a
 * seed gives the same map on every platform.
 *
 * Distances: fingerprints use Jaccard distance 1 - Tanimoto (as UMAP here), vectors Euclidean
 * distance; both squared, as scikit-learn squares every distance before calibrating. Cost is
 * O(n²) memory (one n × n float64 matrix) and O(n²) time per iteration, hence the limits.
 */
import { createPrng } from '../../selection/prng.ts';
import { AnalysisError, checkInteger, checkLimit, checkNumber } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { sliceSet, type FingerprintSet } from '../fingerprints.ts';
import { tanimotoMatrixInto } from '../similarity/tanimoto-matrix.ts';
import { uniform01, type Matrix } from '../cluster/matrix.ts';
import { sparseFromMatrix } from './pca.ts';

export interface TsneOptions {
  /** Effective number of neighbours (5-50, below the number of molecules; default 30). */
  perplexity?: number;
  /** Gradient-descent iterations including the 250 of early exaggeration (250-5000, default 1000). */
  nIter?: number;
  seed?: number;
}

const EXPLORATION_ITER = 250;
const EARLY_EXAGGERATION = 12;
const MACHINE_EPSILON = 2 ** -52;

/** n × n squared distances (row-major, zero diagonal) that t-SNE calibrates on: Jaccard² or Euclidean². */
export function tsneDistances(input: { fps?: FingerprintSet; vectors?: Matrix }): Float64Array {
  if (input.fps) {
    const set = input.fps;
    const out = new Float64Array(set.n * set.n);
    const chunk = Math.max(1, Math.floor(4_000_000 / Math.max(1, set.n)));
    for (let r0 = 0; r0 < set.n; r0 += chunk) {
      const r1 = Math.min(set.n, r0 + chunk);
      const sims = new Float32Array((r1 - r0) * set.n);
      tanimotoMatrixInto(sliceSet(set, r0, r1), set, sims);
      for (let k = 0; k < sims.length; k++) out[r0 * set.n + k] = Math.max(0, 1 - sims[k]) ** 2;
    }
    for (let i = 0; i < set.n; i++) out[i * set.n + i] = 0;
    return out;
  }
  // Embeddings are mostly zeros: |x|² + |y|² − 2 x·y over y's non-zero entries (as vectorKnn).
  const m = input.vectors!;
  const x = sparseFromMatrix(m);
  const norms = new Float64Array(m.n);
  for (let i = 0; i < m.n; i++)
    for (let p = x.offsets[i]; p < x.offsets[i + 1]; p++) norms[i] += x.values[p] * x.values[p];
  const out = new Float64Array(m.n * m.n);
  const dense = new Float64Array(m.d);
  for (let i = 0; i < m.n; i++) {
    for (let p = x.offsets[i]; p < x.offsets[i + 1]; p++) dense[x.indices[p]] = x.values[p];
    for (let j = i + 1; j < m.n; j++) {
      let dot = 0;
      for (let p = x.offsets[j]; p < x.offsets[j + 1]; p++) dot += dense[x.indices[p]] * x.values[p];
      out[i * m.n + j] = out[j * m.n + i] = Math.max(0, norms[i] + norms[j] - 2 * dot);
    }
    for (let p = x.offsets[i]; p < x.offsets[i + 1]; p++) dense[x.indices[p]] = 0;
  }
  return out;
}

/**
 * The joint probabilities P of t-SNE from n × n distances, in place (the distances are
 * overwritten): per row, the Gaussian bandwidth whose conditional distribution has perplexity
 * `perplexity` (binary search on beta, as scikit-learn; distances rounded to float32 as it reads
 * them), then P = (P + Pᵀ) / sum, floored at machine epsilon. Returns the same array.
 */
export function jointProbabilities(dist: Float64Array, n: number, perplexity: number): Float64Array {
  const desired = Math.log(perplexity);
  const row = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const base = i * n;
    let beta = 1;
    let betaMin = -Infinity;
    let betaMax = Infinity;
    for (let step = 0; step < 100; step++) {
      let sum = 0;
      for (let j = 0; j < n; j++) {
        row[j] = j === i ? 0 : Math.exp(-Math.fround(dist[base + j]) * beta);
        sum += row[j];
      }
      if (sum === 0) sum = 1e-8;
      let sumDistP = 0;
      for (let j = 0; j < n; j++) {
        row[j] /= sum;
        sumDistP += Math.fround(dist[base + j]) * row[j];
      }
      const diff = Math.log(sum) + beta * sumDistP - desired;
      if (Math.abs(diff) <= 1e-5) break;
      if (diff > 0) {
        betaMin = beta;
        beta = betaMax === Infinity ? beta * 2 : (beta + betaMax) / 2;
      } else {
        betaMax = beta;
        beta = betaMin === -Infinity ? beta / 2 : (beta + betaMin) / 2;
      }
    }
    dist.set(row, base);
  }
  // symmetrise: the conditional rows become the joint distribution
  let total = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const s = dist[i * n + j] + dist[j * n + i];
      dist[i * n + j] = dist[j * n + i] = s;
      total += 2 * s;
    }
  total = Math.max(total, MACHINE_EPSILON);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      dist[i * n + j] = i === j ? 0 : Math.max(dist[i * n + j] / total, MACHINE_EPSILON);
  return dist;
}

/** Standard normal draws from the seeded generator (Box–Muller). */
function gaussian(next: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const s = spare;
      spare = undefined;
      return s;
    }
    const u = 1 - uniform01(next);
    const v = uniform01(next);
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** One gradient of KL(P‖Q) at y (n × 2), into grad; P is scaled by `exaggeration`. */
function gradient(
  p: Float64Array,
  y: Float64Array,
  n: number,
  exaggeration: number,
  grad: Float64Array,
): void {
  // Z = Σ_{i≠j} (1 + |yi − yj|²)⁻¹, then ∂/∂yi = 4 Σ_j (pij − qij)(1 + |yi − yj|²)⁻¹ (yi − yj)
  let z = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const dx = y[2 * i] - y[2 * j];
      const dy = y[2 * i + 1] - y[2 * j + 1];
      z += 2 / (1 + dx * dx + dy * dy);
    }
  grad.fill(0);
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const dx = y[2 * i] - y[2 * j];
      const dy = y[2 * i + 1] - y[2 * j + 1];
      const w = 1 / (1 + dx * dx + dy * dy);
      const q = Math.max(w / z, MACHINE_EPSILON);
      const f = 4 * (exaggeration * p[i * n + j] - q) * w;
      grad[2 * i] += f * dx;
      grad[2 * i + 1] += f * dy;
      grad[2 * j] -= f * dx;
      grad[2 * j + 1] -= f * dy;
    }
}

/**
 * t-SNE coordinates (n × 2, row-major) of fingerprints or vectors; `onProgress(done, total)` is
 * called every 50 iterations (for a job's progress counters). Throws AnalysisError when the
 * molecules are too many or not more than the perplexity needs, or parameters are out of range.
 */
export function tsne2d(
  input: { fps?: FingerprintSet; vectors?: Matrix },
  opts: TsneOptions = {},
  onProgress?: (done: number, total: number) => void,
): Float64Array {
  const n = input.fps?.n ?? input.vectors?.n ?? 0;
  const perplexity = opts.perplexity ?? 30;
  checkNumber('perplexity', perplexity, 5, 50);
  const nIter = opts.nIter ?? 1000;
  checkInteger('n_iter', nIter, EXPLORATION_ITER, 5000);
  checkLimit('search_input', n, ANALYSIS_LIMITS.maxTsneMolecules, 'molecules for a t-SNE map');
  if (n <= perplexity)
    throw new AnalysisError(
      'invalid_parameter',
      'perplexity',
      `t-SNE needs more molecules (${n}) than the perplexity (${perplexity})`,
    );
  const p = jointProbabilities(tsneDistances(input), n, perplexity);
  const normal = gaussian(createPrng(opts.seed ?? 0));
  const y = new Float64Array(2 * n);
  for (let k = 0; k < y.length; k++) y[k] = 1e-4 * normal();
  const update = new Float64Array(2 * n);
  const gains = new Float64Array(2 * n).fill(1);
  const grad = new Float64Array(2 * n);
  const rate = Math.max(n / EARLY_EXAGGERATION / 4, 50);
  for (let it = 0; it < nIter; it++) {
    const early = it < EXPLORATION_ITER;
    // scikit-learn runs the two stages as two descents, each starting from rest
    if (it === EXPLORATION_ITER) {
      update.fill(0);
      gains.fill(1);
    }
    gradient(p, y, n, early ? EARLY_EXAGGERATION : 1, grad);
    const momentum = early ? 0.5 : 0.8;
    for (let k = 0; k < y.length; k++) {
      gains[k] = Math.max(0.01, update[k] * grad[k] < 0 ? gains[k] + 0.2 : gains[k] * 0.8);
      update[k] = momentum * update[k] - rate * gains[k] * grad[k];
      y[k] += update[k];
    }
    if (onProgress && (it + 1) % 50 === 0) onProgress(it + 1, nIter);
  }
  return y;
}

/** KL(P‖Q) of a map y (n × 2) under joint P: the objective t-SNE minimises (scikit-learn's `kl_divergence_`). */
export function klDivergence(p: Float64Array, y: ArrayLike<number>, n: number): number {
  let z = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++)
      z += 2 / (1 + (y[2 * i] - y[2 * j]) ** 2 + (y[2 * i + 1] - y[2 * j + 1]) ** 2);
  let kl = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const q = Math.max(
        1 / (1 + (y[2 * i] - y[2 * j]) ** 2 + (y[2 * i + 1] - y[2 * j + 1]) ** 2) / z,
        MACHINE_EPSILON,
      );
      const pij = p[i * n + j];
      kl += 2 * pij * Math.log(pij / q);
    }
  return kl;
}
