/**
 * What a clustering stores so new molecules can be placed later (/nearest_cluster): per cluster
 * its size and representative (Butina centroid, k-medoids medoid, or for k-means the member
 * nearest its centre), and the representation the assignment compares against: the
 * representatives' fingerprints (Tanimoto) or the centres as vectors (Euclidean). It is JSON
 * (`molsearch-clustering/1`, binary parts in base64) so it can sit in the object store next to a
 * job's results; parseClustering validates every part.
 */
import { FP_BYTES } from '../../chem/fingerprint.ts';
import { AnalysisError } from '../errors.ts';
import { fromPacked, type FingerprintSet } from '../fingerprints.ts';
import { tanimotoDistance } from './butina.ts';
import { tanimotoMatrixInto } from '../similarity/tanimoto-matrix.ts';
import { squaredDistance, type Matrix } from './matrix.ts';

export const CLUSTERING_FORMAT = 'molsearch-clustering/1';
export const CLUSTER_METHODS = ['butina', 'kmeans', 'kmedoids'] as const;
export type ClusterMethod = (typeof CLUSTER_METHODS)[number];
export const CLUSTER_METRICS = ['tanimoto', 'euclidean'] as const;
export type ClusterMetric = (typeof CLUSTER_METRICS)[number];

export interface ClusterSummary {
  size: number;
  representative: { smiles: string; id?: string };
}

export interface ClusteringModel {
  format: typeof CLUSTERING_FORMAT;
  method: ClusterMethod;
  search_type: 'morgan';
  metric: ClusterMetric;
  /** The embedding the Euclidean centres live in (`bits` or `counts`). */
  embedding?: 'bits' | 'counts';
  /** Butina's distance threshold: a new molecule farther than this from every centroid joins none. */
  threshold?: number;
  clusters: ClusterSummary[];
  /** Tanimoto: the representatives' fingerprints, cluster order. */
  fingerprints?: FingerprintSet;
  /** Euclidean: the centres, cluster order. */
  centers?: Matrix;
}

/** Where each new molecule lands: cluster index, its similarity (Tanimoto) or distance (Euclidean), and whether it is inside. */
export interface Placement {
  cluster: Int32Array;
  score: Float64Array;
  /** 0 where a Butina model's threshold excludes the molecule from even its nearest cluster. */
  within: Uint8Array;
}

/**
 * Places new molecules against a stored clustering. Tanimoto models need `fps`, Euclidean ones
 * `vectors` of the model's dimension. Nearest = highest Tanimoto / lowest distance, lowest cluster
 * index on ties.
 */
export function nearestCluster(
  model: ClusteringModel,
  probes: { fps?: FingerprintSet; vectors?: Matrix },
): Placement {
  const k = model.clusters.length;
  if (model.metric === 'tanimoto') {
    const reps = model.fingerprints!;
    const fps = probes.fps;
    if (!fps || fps.n === 0)
      throw new AnalysisError('empty_input', 'search_input', 'needs at least one molecule');
    const sims = new Float32Array(fps.n * k);
    tanimotoMatrixInto(fps, reps, sims);
    const out: Placement = {
      cluster: new Int32Array(fps.n),
      score: new Float64Array(fps.n),
      within: new Uint8Array(fps.n),
    };
    for (let i = 0; i < fps.n; i++) {
      let best = 0;
      for (let c = 1; c < k; c++) if (sims[i * k + c] > sims[i * k + best]) best = c;
      const t = sims[i * k + best];
      const a = fps.popcounts[i];
      const b = reps.popcounts[best];
      // the exact f64 similarity, as Butina's threshold test uses it
      const exact = 1 - tanimotoDistance(a, b, Math.round((t * (a + b)) / (1 + t)));
      out.cluster[i] = best;
      out.score[i] = exact;
      out.within[i] = model.method !== 'butina' || 1 - exact <= model.threshold! ? 1 : 0;
    }
    return out;
  }
  const centers = model.centers!;
  const v = probes.vectors;
  if (!v || v.n === 0) throw new AnalysisError('empty_input', 'search_input', 'needs at least one molecule');
  if (v.d !== centers.d)
    throw new AnalysisError(
      'dimension_mismatch',
      'search_input',
      `embeddings have ${v.d} dimensions, the clustering ${centers.d}`,
    );
  const out: Placement = {
    cluster: new Int32Array(v.n),
    score: new Float64Array(v.n),
    within: new Uint8Array(v.n).fill(1),
  };
  for (let i = 0; i < v.n; i++) {
    let best = 0;
    let bestD = squaredDistance(v, i, centers, 0);
    for (let c = 1; c < k; c++) {
      const d = squaredDistance(v, i, centers, c);
      if (d < bestD) {
        bestD = d;
        best = c;
      }
    }
    out.cluster[i] = best;
    out.score[i] = Math.sqrt(bestD);
  }
  return out;
}

/** The JSON text of a model (fingerprints and centres as base64 of their bytes, little-endian f32). */
export function serializeClustering(model: ClusteringModel): string {
  const { fingerprints, centers, ...rest } = model;
  return JSON.stringify({
    ...rest,
    ...(fingerprints ? { fingerprints_b64: Buffer.from(fingerprints.fps).toString('base64') } : {}),
    ...(centers
      ? {
          centers: {
            d: centers.d,
            f32_b64: Buffer.from(Float32Array.from(centers.values).buffer).toString('base64'),
          },
        }
      : {}),
  });
}

function bad(message: string): never {
  throw new AnalysisError('invalid_model', 'clustering', message);
}

/** Parses and validates a stored clustering; throws AnalysisError `invalid_model` on `clustering`. */
export function parseClustering(text: string): ClusteringModel {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text);
  } catch {
    bad('not JSON');
  }
  if (!raw || typeof raw !== 'object') bad('not an object');
  if (raw.format !== CLUSTERING_FORMAT) bad(`format must be ${CLUSTERING_FORMAT}`);
  if (!(CLUSTER_METHODS as readonly unknown[]).includes(raw.method))
    bad(`method must be one of ${CLUSTER_METHODS.join(', ')}`);
  if (raw.search_type !== 'morgan') bad('search_type must be morgan');
  if (!(CLUSTER_METRICS as readonly unknown[]).includes(raw.metric))
    bad(`metric must be one of ${CLUSTER_METRICS.join(', ')}`);
  const clusters = raw.clusters;
  if (!Array.isArray(clusters) || clusters.length === 0) bad('clusters must be a non-empty list');
  for (const c of clusters)
    if (!c || !Number.isInteger(c.size) || c.size < 1 || typeof c.representative?.smiles !== 'string')
      bad('each cluster needs a positive integer size and a representative with smiles');
  const model = { ...raw } as unknown as ClusteringModel;
  delete (model as unknown as Record<string, unknown>).fingerprints_b64;
  if (raw.method === 'butina') {
    if (typeof raw.threshold !== 'number' || !(raw.threshold >= 0 && raw.threshold <= 1))
      bad('a butina clustering needs a threshold in [0, 1]');
  }
  if (raw.metric === 'tanimoto') {
    if (typeof raw.fingerprints_b64 !== 'string') bad('a tanimoto clustering needs fingerprints_b64');
    const bytes = new Uint8Array(Buffer.from(raw.fingerprints_b64, 'base64'));
    if (bytes.length !== clusters.length * FP_BYTES)
      bad(`fingerprints_b64 must hold ${clusters.length} fingerprints`);
    model.fingerprints = fromPacked(bytes);
  } else {
    const c = raw.centers as { d?: unknown; f32_b64?: unknown } | undefined;
    if (!c || !Number.isInteger(c.d) || (c.d as number) < 1 || typeof c.f32_b64 !== 'string')
      bad('a euclidean clustering needs centers {d, f32_b64}');
    const bytes = Buffer.from(c.f32_b64 as string, 'base64');
    const d = c.d as number;
    if (bytes.length !== clusters.length * d * 4)
      bad(`centers must hold ${clusters.length} × ${d} float32 values`);
    const values = new Float32Array(new Uint8Array(bytes).buffer);
    if (values.some((x) => !Number.isFinite(x))) bad('centers must be finite');
    model.centers = { n: clusters.length, d, values };
  }
  return model;
}
