/**
 * k-medoids on a precomputed distance matrix (Tanimoto distance of fingerprints, or Euclidean
 * distance of embeddings), reproducible by seed: k-medoids++ seeding (as k-means++, probability ∝
 * squared distance) from a seeded generator, then FasterPAM's eager swaps (Schubert & Rousseeuw,
 * "Fast and eager k-medoids clustering", Information Systems 2021): candidates are visited in index
 * order, cyclically; the best medoid to exchange with a candidate is found in O(n) from each
 * point's nearest and second-nearest medoid, and the exchange is made at once when it lowers the
 * total deviation. It stops after a full pass without an exchange: then no single swap of a
 * medoid with a non-medoid improves the clustering (a local optimum of PAM's SWAP).
 */
import { createPrng, nextBelow } from '../../selection/prng.ts';
import { AnalysisError, checkInteger } from '../errors.ts';
import { ANALYSIS_LIMITS } from '../limits.ts';
import { uniform01 } from './matrix.ts';

/** A symmetric n × n distance matrix with a zero diagonal, row-major. */
export interface DistanceMatrix {
  n: number;
  values: Float32Array | Float64Array;
}

export interface KMedoidsResult {
  /** Indices of the medoids, in cluster order. */
  medoids: Int32Array;
  /** Cluster of each point: index into `medoids` (nearest medoid, lowest cluster on ties). */
  labels: Int32Array;
  /** Total deviation: sum of each point's distance to its medoid. */
  cost: number;
  swaps: number;
}

/** k-medoids++ seeding on a distance matrix. */
export function kmedoidsPlusPlus(dist: DistanceMatrix, k: number, seed: number): Int32Array {
  const { n, values } = dist;
  const next = createPrng(seed);
  const medoids = new Int32Array(k);
  const d2 = new Float64Array(n).fill(Infinity);
  const chosen = new Uint8Array(n);
  for (let c = 0; c < k; c++) {
    let pick = c === 0 ? nextBelow(next, n) : -1;
    if (c > 0) {
      let sum = 0;
      for (let i = 0; i < n; i++) if (!chosen[i]) sum += d2[i];
      if (sum === 0) pick = chosen.indexOf(0);
      else {
        let r = uniform01(next) * sum;
        for (let i = 0; i < n; i++) {
          if (chosen[i] || d2[i] === 0) continue;
          pick = i;
          r -= d2[i];
          if (r < 0) break;
        }
      }
    }
    medoids[c] = pick;
    chosen[pick] = 1;
    for (let i = 0; i < n; i++) {
      const x = values[pick * n + i];
      if (x * x < d2[i]) d2[i] = x * x;
    }
  }
  return medoids;
}

interface Caches {
  nearest: Int32Array;
  dNearest: Float64Array;
  dSecond: Float64Array;
}

function computeCaches(dist: DistanceMatrix, medoids: Int32Array, c: Caches): void {
  const { n, values } = dist;
  for (let o = 0; o < n; o++) {
    let best = 0;
    let d1 = Infinity;
    let d2 = Infinity;
    for (let m = 0; m < medoids.length; m++) {
      const x = values[medoids[m] * n + o];
      if (x < d1) {
        d2 = d1;
        d1 = x;
        best = m;
      } else if (x < d2) d2 = x;
    }
    c.nearest[o] = best;
    c.dNearest[o] = d1;
    c.dSecond[o] = d2;
  }
}

/**
 * k-medoids of the n points of `dist` into k clusters. `seed` fixes the seeding; `maxPasses`
 * bounds the passes over all candidates. Throws AnalysisError for k outside [1, min(n, maxClusters)].
 */
export function kmedoids(
  dist: DistanceMatrix,
  k: number,
  opts: { seed?: number; maxPasses?: number; init?: Int32Array } = {},
): KMedoidsResult {
  const { n, values } = dist;
  if (n === 0) throw new AnalysisError('empty_input', 'search_input', 'needs at least one molecule');
  if (values.length !== n * n)
    throw new AnalysisError('dimension_mismatch', 'distances', `expected ${n} × ${n} values`);
  checkInteger('n_clusters', k, 1, Math.min(n, ANALYSIS_LIMITS.maxClusters));
  if (opts.init) {
    const distinct = new Set(opts.init);
    if (opts.init.length !== k || distinct.size !== k || opts.init.some((m) => !(m >= 0 && m < n)))
      throw new AnalysisError(
        'invalid_parameter',
        'init',
        `initial medoids must be ${k} distinct indices below ${n}`,
      );
  }
  if (k === 1 && !opts.init) return singleMedoid(dist);
  const medoids = opts.init ? Int32Array.from(opts.init) : kmedoidsPlusPlus(dist, k, opts.seed ?? 0);
  const isMedoid = new Uint8Array(n);
  for (const m of medoids) isMedoid[m] = 1;
  const c: Caches = {
    nearest: new Int32Array(n),
    dNearest: new Float64Array(n),
    dSecond: new Float64Array(n),
  };
  computeCaches(dist, medoids, c);
  let cost = c.dNearest.reduce((s, x) => s + x, 0);
  const maxPasses = opts.maxPasses ?? 100;
  const removal = new Float64Array(k);
  // loss of removing each medoid alone: its points move to their second-nearest medoid
  const removalLoss = (): void => {
    removal.fill(0);
    for (let o = 0; o < n; o++) removal[c.nearest[o]] += c.dSecond[o] - c.dNearest[o];
  };
  removalLoss();
  const delta = new Float64Array(k);
  let swaps = 0;
  let lastSwap = -1;
  for (let step = 0; step < maxPasses * n; step++) {
    const xc = step % n;
    if (xc === lastSwap) break; // a full pass since the last exchange found nothing better
    if (lastSwap < 0 && step === n) break; // a full first pass without any exchange
    if (isMedoid[xc]) continue;
    delta.set(removal);
    let acc = 0;
    for (let o = 0; o < n; o++) {
      const doc = values[xc * n + o];
      const nearest = c.nearest[o];
      if (doc < c.dNearest[o]) {
        acc += doc - c.dNearest[o];
        delta[nearest] += c.dNearest[o] - c.dSecond[o];
      } else if (doc < c.dSecond[o]) delta[nearest] += doc - c.dSecond[o];
    }
    let best = 0;
    for (let m = 1; m < k; m++) if (delta[m] < delta[best]) best = m;
    const change = delta[best] + acc;
    // a relative tolerance keeps float noise from swapping back and forth
    if (change < -1e-12 * Math.max(1, cost)) {
      isMedoid[medoids[best]] = 0;
      medoids[best] = xc;
      isMedoid[xc] = 1;
      computeCaches(dist, medoids, c);
      removalLoss();
      cost = c.dNearest.reduce((s, x) => s + x, 0);
      swaps++;
      lastSwap = xc;
    }
  }
  return { medoids, labels: Int32Array.from(c.nearest), cost, swaps };
}

/** k = 1 exactly: the point with the least total distance to all (lowest index on ties); no second medoid exists for the swap rule. */
function singleMedoid(dist: DistanceMatrix): KMedoidsResult {
  const { n, values } = dist;
  let best = 0;
  let bestCost = Infinity;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let o = 0; o < n; o++) s += values[i * n + o];
    if (s < bestCost) {
      bestCost = s;
      best = i;
    }
  }
  return { medoids: Int32Array.of(best), labels: new Int32Array(n), cost: bestCost, swaps: 0 };
}

/** The n × n Euclidean distance matrix of the rows of a row-major matrix (f64 sums, stored as f32). */
export function euclideanDistances(rows: {
  n: number;
  d: number;
  values: ArrayLike<number>;
}): DistanceMatrix {
  const { n, d, values } = rows;
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      let s = 0;
      for (let t = 0; t < d; t++) {
        const x = values[i * d + t] - values[j * d + t];
        s += x * x;
      }
      out[i * n + j] = out[j * n + i] = Math.sqrt(s);
    }
  return { n, values: out };
}
