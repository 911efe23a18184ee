/**
 * k-means (Lloyd) on embeddings, reproducible by seed: k-means++ seeding from a seeded generator,
 * then assignment and mean updates until no assignment changes (sklearn's "strict convergence")
 * or maxIter. Distances are squared Euclidean summed in f64; a point equally close to several
 * centres goes to the lowest centre index; a centre left without points moves onto the point
 * farthest from its own centre, lowest index on ties (sklearn also relocates empty clusters to far
 * points, and also removes them from their old cluster's mean at once). With the same initial
 * centres, and no cluster ever empty, the result equals sklearn's `KMeans(algorithm="lloyd")`
 * (test/engine/analysis/cluster/kmeans.test.ts).
 */
import { createPrng, nextBelow } from '../../selection/prng.ts';
import { AnalysisError, checkInteger } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { squaredDistance, uniform01, type Matrix } from './matrix.ts';

export interface KMeansOptions {
  seed?: number;
  maxIter?: number;
  /** Initial centres (k × d) instead of k-means++. */
  init?: Matrix;
}

export interface KMeansResult {
  labels: Int32Array;
  /** k × d, f64. */
  centers: Matrix;
  /** Sum of squared distances of points to their centre. */
  inertia: number;
  iterations: number;
  converged: boolean;
}

/** k-means++ seeding: the first centre uniformly, each next with probability ∝ squared distance to the nearest chosen. */
export function kmeansPlusPlus(data: Matrix, k: number, seed: number): Int32Array {
  const next = createPrng(seed);
  const chosen = new Int32Array(k);
  const d2 = new Float64Array(data.n).fill(Infinity);
  const isChosen = new Uint8Array(data.n);
  for (let c = 0; c < k; c++) {
    let pick: number;
    if (c === 0) pick = nextBelow(next, data.n);
    else {
      let sum = 0;
      for (let i = 0; i < data.n; i++) sum += d2[i];
      if (sum === 0) {
        // every point sits on a chosen centre: take the lowest index not chosen yet
        pick = isChosen.indexOf(0);
      } else {
        let r = uniform01(next) * sum;
        pick = -1;
        for (let i = 0; i < data.n; i++) {
          if (d2[i] === 0) continue;
          pick = i;
          r -= d2[i];
          if (r < 0) break;
        }
      }
    }
    chosen[c] = pick;
    isChosen[pick] = 1;
    for (let i = 0; i < data.n; i++) {
      const dist = squaredDistance(data, i, data, pick);
      if (dist < d2[i]) d2[i] = dist;
    }
  }
  return chosen;
}

function assign(data: Matrix, centers: Matrix, labels: Int32Array, dists: Float64Array): boolean {
  let changed = false;
  for (let i = 0; i < data.n; i++) {
    let best = 0;
    let bestD = squaredDistance(data, i, centers, 0);
    for (let c = 1; c < centers.n; c++) {
      const dist = squaredDistance(data, i, centers, c);
      if (dist < bestD) {
        bestD = dist;
        best = c;
      }
    }
    if (labels[i] !== best) changed = true;
    labels[i] = best;
    dists[i] = bestD;
  }
  return changed;
}

function update(data: Matrix, centers: Matrix, labels: Int32Array, dists: Float64Array): void {
  const { d } = data;
  const sums = new Float64Array(centers.n * d);
  const counts = new Float64Array(centers.n);
  for (let i = 0; i < data.n; i++) {
    const c = labels[i];
    counts[c]++;
    for (let j = 0; j < d; j++) sums[c * d + j] += data.values[i * d + j];
  }
  for (let c = 0; c < centers.n; c++) {
    if (counts[c] === 0) {
      let far = 0;
      for (let i = 1; i < data.n; i++) if (dists[i] > dists[far]) far = i;
      dists[far] = 0;
      for (let j = 0; j < d; j++) centers.values[c * d + j] = data.values[far * d + j];
    } else for (let j = 0; j < d; j++) centers.values[c * d + j] = sums[c * d + j] / counts[c];
  }
}

/** k-means of the rows of `data` into k clusters. Throws AnalysisError for k outside [1, min(n, maxClusters)]. */
export function kmeans(data: Matrix, k: number, opts: KMeansOptions = {}): KMeansResult {
  if (data.n === 0) throw new AnalysisError('empty_input', 'search_input', 'needs at least one molecule');
  checkInteger('n_clusters', k, 1, Math.min(data.n, ANALYSIS_LIMITS.maxClusters));
  const maxIter = opts.maxIter ?? 300;
  checkInteger('max_iter', maxIter, 1, 10_000);
  const centers: Matrix = { n: k, d: data.d, values: new Float64Array(k * data.d) };
  if (opts.init) {
    if (opts.init.n !== k || opts.init.d !== data.d)
      throw new AnalysisError('dimension_mismatch', 'init', `initial centres must be ${k} × ${data.d}`);
    centers.values.set(opts.init.values);
  } else {
    const seeds = kmeansPlusPlus(data, k, opts.seed ?? 0);
    seeds.forEach((s, c) =>
      centers.values.set(data.values.subarray(s * data.d, (s + 1) * data.d), c * data.d),
    );
  }
  const labels = new Int32Array(data.n).fill(-1);
  const dists = new Float64Array(data.n);
  let iterations = 0;
  let converged = false;
  while (iterations < maxIter) {
    const changed = assign(data, centers, labels, dists);
    if (!changed && iterations > 0) {
      converged = true;
      break;
    }
    update(data, centers, labels, dists);
    iterations++;
  }
  if (!converged) assign(data, centers, labels, dists);
  let inertia = 0;
  for (const x of dists) inertia += x;
  return { labels, centers, inertia, iterations, converged };
}
